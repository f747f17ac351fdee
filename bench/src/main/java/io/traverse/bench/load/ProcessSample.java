package io.traverse.bench.load;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What Linux says about a process: resident memory, threads and CPU time (user + system), from
 * {@code /proc/PID/status} and {@code /proc/PID/stat}.
 */
record ProcessSample(long rssBytes, int threads, double cpuSeconds) {
    /** Clock ticks per second of {@code /proc/PID/stat} (USER_HZ, 100 on every Linux we run on). */
    private static final double TICKS = 100.0;

    static ProcessSample of(long pid) throws IOException {
        long rss = 0;
        int threads = 0;
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            if (line.startsWith("VmRSS:")) {
                rss = Long.parseLong(line.replaceAll("\\D", "")) * 1024;
            } else if (line.startsWith("Threads:")) {
                threads = Integer.parseInt(line.replaceAll("\\D", ""));
            }
        }
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        // Fields after the command name (which may hold spaces), counted from field 3 (state).
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        double cpu = (Long.parseLong(f[11]) + Long.parseLong(f[12])) / TICKS;
        return new ProcessSample(rss, threads, cpu);
    }
}
