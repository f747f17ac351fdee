package io.traverse.longpolling;

/**
 * The HTTP side of a long-poll session (docs/protocol.md, "Long-poll sessions"), shared by the
 * hub and the node: paths, headers and query parameters. The bodies carry the link's own byte
 * stream; offsets count bytes in each direction from the start of the session.
 */
public final class LongPollProtocol {
    /** Every path starts with this; a session's own paths add {@code /{id}}. */
    public static final String BASE = "/traverse/longpoll/v1";

    public static final String OPEN = BASE + "/open";
    /** The secret that proves a request comes from whoever opened the session (never in the URL: proxies log URLs). */
    public static final String SECRET = "X-Traverse-Secret";
    /** The node that opened the session; once the link inside authenticates it, no other node may use the session. */
    public static final String NODE = "X-Traverse-Node";

    public static final String SESSION = "X-Traverse-Session";
    /** In a poll's answer: the offset of the body's first byte in the downstream stream. */
    public static final String OFFSET = "X-Traverse-Offset";
    /** In an upstream answer: how many upstream bytes the hub has taken in all (the node may drop them). */
    public static final String RECEIVED = "X-Traverse-Received";
    /** Granted parameters, in the answer to open. */
    public static final String SERVER_TIMEOUT = "X-Traverse-Server-Timeout";

    public static final String BATCH_SIZE = "X-Traverse-Batch-Size";
    public static final String BATCH_TIMESPAN = "X-Traverse-Batch-Timespan";
    /** The largest request body the hub reads; larger ones are answered 413. */
    public static final int MAX_BODY = 1024 * 1024;

    private LongPollProtocol() {}
}
