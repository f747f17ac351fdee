/**
 * The {@code traverse} command line (picocli): one runnable jar carrying every module. The
 * {@code demo} subcommand is the main job; {@code hub} runs the hub daemon and {@code status}
 * shows a hub network; {@code expose} and {@code forward} carry plain TCP through Traverse, and
 * {@code agent} runs many of them from one file;
 * {@code diagnose} tries each connection module on its own.
 */
package io.traverse.cli;
