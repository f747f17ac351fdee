package io.traverse.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The network token options, the same for every command that links to a hub network (a node's
 * commands and {@code traverse hub}); each command decides which of them wins.
 */
public final class TokenOptions {
    @Option(
            names = "--token",
            paramLabel = "TOKEN",
            description = "network token (visible in the process list: prefer --token-file or TRAVERSE_TOKEN)")
    String token;

    @Option(names = "--token-file", paramLabel = "FILE", description = "file whose first line is the network token")
    Path tokenFile;

    /** {@code --token}, or null. */
    public String token() {
        return token;
    }

    /** {@code --token-file}, or null. */
    public Path tokenFile() {
        return tokenFile;
    }
}
