/** {@code traverse status}: fetches a hub's status document and prints it for people. */
package io.traverse.cli.status;
