package io.traverse.cli;

import io.traverse.cli.agent.AgentCommand;
import io.traverse.cli.demo.DemoCommand;
import io.traverse.cli.diagnose.DiagnoseCommand;
import io.traverse.cli.hub.HubCommand;
import io.traverse.cli.pipe.ExposeCommand;
import io.traverse.cli.pipe.ForwardCommand;
import io.traverse.cli.status.StatusCommand;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/** The {@code traverse} command. Subcommands grow with the modules: demo, hub, status, expose, forward, agent, diagnose and perf. */
@Command(
        name = "traverse",
        mixinStandardHelpOptions = true,
        versionProvider = TraverseCommand.Version.class,
        description = "Connect any two JVMs through firewalls, NAT and non-routed networks.",
        subcommands = {
            DemoCommand.class,
            HubCommand.class,
            StatusCommand.class,
            ExposeCommand.class,
            ForwardCommand.class,
            AgentCommand.class,
            DiagnoseCommand.class,
            io.traverse.cli.perf.PerfCommand.class,
            CommandLine.HelpCommand.class
        })
public final class TraverseCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Applied before any logger exists; subcommands pick their own default when it is not given. */
    @Option(
            names = "--log-level",
            scope = ScopeType.INHERIT,
            paramLabel = "LEVEL",
            description = "error, warn, info, debug or trace (default: warn for demo and diagnose, info otherwise)")
    void logLevel(String level) {
        LogLevel.set(level);
    }

    /** Applied before any logger exists; failure lines and usage stay on the terminal's standard error. */
    @Option(
            names = "--log-file",
            scope = ScopeType.INHERIT,
            paramLabel = "FILE",
            description =
                    "append the log to FILE instead of standard error (a command's failure line still goes to standard error)")
    void logFile(Path file) {
        try {
            PrintStream terminal = LogLevel.appendTo(file);
            spec.commandLine().setErr(new PrintWriter(terminal, true));
        } catch (IOException | RuntimeException e) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "cannot write the log file " + file + ": " + FailureLine.describe(e));
        }
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The command with its error handling: one line per failure or usage error, no stack trace unless --log-level debug. */
    public static CommandLine commandLine() {
        CommandLine command = new CommandLine(new TraverseCommand());
        command.setExecutionExceptionHandler(new FailureLine());
        command.setParameterExceptionHandler(new UsageErrorLine());
        return command;
    }

    /** The version from the jar manifest. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = TraverseCommand.class.getPackage().getImplementationVersion();
            return new String[] {"traverse " + (v == null ? "(development build)" : v)};
        }
    }
}
