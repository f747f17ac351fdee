package io.traverse;

import java.time.Duration;

/**
 * Connection setup counters of one module on one node: attempts started, attempts that produced
 * the connection, attempts that failed (losing a race to another module is neither), and the
 * mean time from the start of setup to a working socket for the successes.
 */
public record ModuleStatistics(String module, long attempts, long successes, long failures, Duration meanSetupTime) {}
