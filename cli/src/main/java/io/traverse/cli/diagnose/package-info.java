/** {@code traverse diagnose}: every connection module tried on its own against one target. */
package io.traverse.cli.diagnose;
