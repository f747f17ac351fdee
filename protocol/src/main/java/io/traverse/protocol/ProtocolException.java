package io.traverse.protocol;

import java.io.IOException;

/** The peer sent something that is not our protocol: wrong magic, unknown version, bad lengths or fields. */
public class ProtocolException extends IOException {
    private static final long serialVersionUID = 1L;

    public ProtocolException(String message) {
        super(message);
    }
}
