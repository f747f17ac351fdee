package io.traverse.testbed;

import java.util.List;

/** What a finished command printed and how it exited. */
public record CommandResult(List<String> command, int exitCode, String stdout, String stderr) {
    public CommandResult {
        command = List.copyOf(command);
    }

    public boolean succeeded() {
        return exitCode == 0;
    }

    /** The command line as one string, for messages. */
    public String commandLine() {
        return String.join(" ", command);
    }
}
