package io.traverse.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** A network token kept in a file (every command's {@code --token-file}, the agent's {@code token-file}): its first line, stripped. */
public final class TokenFile {
    private TokenFile() {}

    /** The token in {@code path}: its first line without surrounding white space, or empty for an empty file. */
    public static String read(Path path) throws IOException {
        List<String> lines = Files.readAllLines(path, StandardCharsets.UTF_8);
        return lines.isEmpty() ? "" : lines.get(0).strip();
    }
}
