/** Logging that peers cannot flood. */
package io.traverse.logging;
