package io.traverse.cli.perf;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.cli.TraverseCommand;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** What {@code traverse perf} says to a command line it cannot run; the measuring itself: {@code PerfAcrossNatTest}. */
class PerfCommandTest {
    @Test
    void perfWithoutATargetAsksForOneButServeDoesNot() {
        Run run = run("perf");
        assertThat(run.exit).isEqualTo(2);
        assertThat(run.err).contains("Missing required parameter: 'TARGET'");
        Run help = run("perf", "serve", "--help");
        assertThat(help.exit).isZero();
        assertThat(help.out).contains("--name").contains("--no-plain");
    }

    @Test
    void aBasePortWithoutRoomForTheThreeServicesIsRefusedByName() {
        Run run = run("perf", "somewhere", "--port", "65534");
        assertThat(run.exit).isEqualTo(2);
        assertThat(run.err).contains("port 65534 leaves no room for the three services (1-65533)");
        assertThat(run("perf", "serve", "--port", "0").err).contains("port 0 leaves no room");
        assertThat(run("perf", "somewhere", "--bytes", "0").err).contains("--bytes and --pings must be at least 1");
    }

    private record Run(int exit, String out, String err) {}

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new TraverseCommand());
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int exit = cli.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }
}
