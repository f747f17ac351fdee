/**
 * {@code traverse hub}: runs the hub daemon (paper §3.3.1) from command-line options, a
 * properties file and the environment, until SIGTERM or Ctrl-C.
 */
package io.traverse.cli.hub;
