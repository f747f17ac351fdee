package io.traverse.protocol;

import io.traverse.identity.NodeId;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * What a node dialling back puts in its REVERSE handshake instead of the token it was handed: the
 * token never crosses a wire in clear (it travels only inside the side channel, on TLS hub links),
 * and what does cross is good for one dial-back only, to the node that asked, from the node it
 * asked, for one virtual port.
 *
 * <pre>
 * proof = first 16 bytes of HMAC-SHA256(token, "traverse-reverse-1" ‖ id(listener) ‖ id(dialler) ‖ u16 virtual port)
 * id(x) = u8 length ‖ ASCII id
 * </pre>
 *
 * The listener is the node that asked for the dial-back (it made the token), the dialler the node
 * it asked, and the virtual port the dialler's own, which the REVERSE request names.
 */
public final class DialBackProof {
    /** As long as the token field of a REVERSE request, which carries it. */
    public static final int LENGTH = IdentityHandshake.TOKEN_LENGTH;

    private static final byte[] LABEL = "traverse-reverse-1".getBytes(StandardCharsets.US_ASCII);

    private DialBackProof() {}

    public static byte[] of(byte[] token, NodeId listener, NodeId dialler, int virtualPort) {
        if (token.length != IdentityHandshake.TOKEN_LENGTH) {
            throw new IllegalArgumentException(
                    "a dial-back token has " + IdentityHandshake.TOKEN_LENGTH + " bytes, not " + token.length);
        }
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(token, "HmacSHA256"));
            mac.update(LABEL);
            updateId(mac, listener);
            updateId(mac, dialler);
            mac.update((byte) (virtualPort >>> 8));
            mac.update((byte) virtualPort);
            return Arrays.copyOf(mac.doFinal(), LENGTH);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA256 is missing from this JDK", e);
        }
    }

    private static void updateId(Mac mac, NodeId id) {
        byte[] ascii = id.toString().getBytes(StandardCharsets.US_ASCII);
        mac.update((byte) ascii.length);
        mac.update(ascii);
    }
}
