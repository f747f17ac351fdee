/**
 * The {@code traverse} command line (picocli): one runnable jar carrying every module. The
 * {@code demo} subcommand is the main job; {@code hub} runs the hub daemon; expose, forward,
 * diagnose and status follow with their issues.
 */
package io.traverse.cli;
