package io.traverse.cli.pipe;

/**
 * One service a pipe carries, as configured: an {@link ExposedService} or a {@link ForwardedService}.
 * Two services are the same configuration when they are equal (records), which is how an agent's
 * reload tells a changed service from an unchanged one.
 */
public sealed interface PipeService permits ExposedService, ForwardedService {
    /** The service's name in logs and metrics. */
    String service();

    /** {@code expose} or {@code forward}. */
    String kind();

    /** What it does, for a ready line: {@code exposing 127.0.0.1:5432 as db:5432}. */
    String describe();
}
