package io.traverse.cli.demo;

/**
 * What a demo client asks of a demo server, as the first byte of a connection:
 * {@link #PING} echoes single bytes until EOF; {@link #COUNT} reads to EOF and answers the byte
 * count (throughput); {@link #VERIFY} reads to EOF and answers the count and SHA-256 of what it
 * read (end-to-end check, including half-close).
 */
final class DemoProtocol {
    static final int PING = 'P';
    static final int COUNT = 'C';
    static final int VERIFY = 'V';
    static final int DIGEST_LENGTH = 32;

    private DemoProtocol() {}
}
