package io.traverse.ssh;

import static org.assertj.core.api.Assertions.assertThat;

import com.jcraft.jsch.JSch;
import com.jcraft.jsch.Logger;
import org.junit.jupiter.api.Test;

class JschLoggingTest {
    @Test
    void ourJschLogsThroughSlf4jWithItsStepsAtDebug() {
        JSch jsch = new JSch();
        JschLogging.useSlf4jUnlessSet(jsch);
        assertThat(jsch.getInstanceLogger()).isInstanceOf(JschLogging.class);
        // slf4j-simple in these tests logs WARN and above: JSch's INFO chatter is DEBUG here, its warnings stay
        // warnings.
        assertThat(jsch.getInstanceLogger().isEnabled(Logger.INFO)).isFalse();
        assertThat(jsch.getInstanceLogger().isEnabled(Logger.WARN)).isTrue();
    }

    @Test
    void aLoggerTheApplicationGaveJschIsKept() {
        Logger application = new Logger() {
            @Override
            public boolean isEnabled(int level) {
                return true;
            }

            @Override
            public void log(int level, String message) {}
        };
        JSch.setLogger(application);
        try {
            JSch jsch = new JSch();
            JschLogging.useSlf4jUnlessSet(jsch);
            assertThat(jsch.getInstanceLogger()).isSameAs(application);
        } finally {
            JSch.setLogger(null); // JSch's default again
        }
        JSch after = new JSch();
        JschLogging.useSlf4jUnlessSet(after);
        assertThat(after.getInstanceLogger()).isInstanceOf(JschLogging.class);
    }
}
