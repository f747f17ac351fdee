package io.traverse.cli;

import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;

/**
 * What a command given wrong arguments or settings prints: one line, {@code traverse CMD: what is
 * wrong (traverse CMD --help lists the options)}, and exit code 2 — not picocli's default of the
 * message followed by the whole usage text, which buries the one line that matters (a config
 * file's unknown key printed 50 lines of usage). {@code --help} still shows the usage.
 */
public final class UsageErrorLine implements IParameterExceptionHandler {
    static final int EXIT_USAGE = 2;

    @Override
    public int handleParseException(ParameterException failure, String[] args) {
        CommandLine command = failure.getCommandLine();
        String name = command.getCommandSpec().qualifiedName();
        PrintWriter err = command.getErr();
        String hint = command.getCommandSpec().optionsMap().containsKey("--help")
                ? " (" + name + " --help lists the options)"
                : "";
        err.println(name + ": " + FailureLine.describe(failure) + hint);
        err.flush();
        return EXIT_USAGE;
    }
}
