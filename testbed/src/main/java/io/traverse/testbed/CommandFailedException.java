package io.traverse.testbed;

/** A command exited with a non-zero code or did not finish in time; the message has the command, code and stderr. */
public final class CommandFailedException extends TestbedException {
    private static final long serialVersionUID = 1L;

    private final transient CommandResult result;

    CommandFailedException(CommandResult result) {
        super("command failed with exit code " + result.exitCode() + ": " + result.commandLine()
                + describeOutput(result));
        this.result = result;
    }

    CommandFailedException(String message, CommandResult partial) {
        super(message + describeOutput(partial));
        this.result = partial;
    }

    /** The command's code and output. */
    public CommandResult result() {
        return result;
    }

    private static String describeOutput(CommandResult r) {
        String err = r.stderr().strip();
        String out = r.stdout().strip();
        StringBuilder sb = new StringBuilder();
        if (!err.isEmpty()) {
            sb.append("\nstderr: ").append(abbreviate(err));
        }
        if (!out.isEmpty() && r.exitCode() != 0) {
            sb.append("\nstdout: ").append(abbreviate(out));
        }
        return sb.toString();
    }

    private static String abbreviate(String text) {
        return text.length() <= 4000 ? text : text.substring(0, 4000) + "...";
    }
}
