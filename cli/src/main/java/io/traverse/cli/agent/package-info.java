/**
 * {@code traverse agent}: the exposes and forwards of one file on one Traverse node in one JVM
 * (one listening port, one hub link), reloaded on SIGHUP, with per-service counters in Prometheus
 * format. The services themselves are {@link io.traverse.cli.pipe.ExposedService} and
 * {@link io.traverse.cli.pipe.ForwardedService}, the same classes the single commands run.
 */
package io.traverse.cli.agent;
