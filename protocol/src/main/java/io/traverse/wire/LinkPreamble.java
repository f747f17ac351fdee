package io.traverse.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.traverse.protocol.ProtocolException;

/**
 * The 8 bytes that open a hub link in each direction: magic {@code "TRVL"}, u16 version, u16
 * role. The dialer sends its preamble first; the acceptor answers with its own (role HUB). A
 * version this side does not speak is not a decoding error: the acceptor answers with its own
 * preamble and a REJECT VERSION frame, so the dialer learns which version to speak.
 *
 * <p>Version 2 runs TLS 1.3 after the two preambles on node and hub links (not on endpoint
 * echoes, and not yet on data links), authenticated by the two ends' keys; a refusal the
 * acceptor makes before TLS (version, link rate) is a frame in clear.
 */
public record LinkPreamble(int version, LinkRole role) {
    /** "TRVL". */
    public static final int MAGIC = 0x5452564C;
    /** The link protocol version this code speaks: 2 since links run TLS. */
    public static final int VERSION = 2;
    /** Size of a preamble on the wire. */
    public static final int LENGTH = 8;

    public LinkPreamble {
        FieldChecks.range("version", version, 0, 0xFFFF);
        FieldChecks.present("role", role);
    }

    /** Our own preamble for a role. */
    public static LinkPreamble current(LinkRole role) {
        return new LinkPreamble(VERSION, role);
    }

    public boolean isSupported() {
        return version == VERSION;
    }

    public void encode(ByteBuf out) {
        out.writeInt(MAGIC).writeShort(version).writeShort(role.code());
    }

    public ByteBuf encode(ByteBufAllocator allocator) {
        ByteBuf out = allocator.buffer(LENGTH);
        encode(out);
        return out;
    }

    /**
     * Reads a preamble from exactly {@link #LENGTH} readable bytes.
     *
     * @throws ProtocolException for a wrong magic (not a Traverse link) or an unknown role
     */
    public static LinkPreamble decode(ByteBuf in) throws ProtocolException {
        if (in.readableBytes() < LENGTH) {
            throw new ProtocolException("truncated preamble: " + in.readableBytes() + " of " + LENGTH + " bytes");
        }
        int magic = in.readInt();
        if (magic != MAGIC) {
            throw new ProtocolException(
                    String.format("not a Traverse hub link: magic 0x%08X, expected 0x%08X (\"TRVL\")", magic, MAGIC));
        }
        int version = in.readUnsignedShort();
        int roleCode = in.readUnsignedShort();
        try {
            return new LinkPreamble(version, LinkRole.ofCode(roleCode));
        } catch (IllegalArgumentException e) {
            throw new ProtocolException("preamble: " + e.getMessage());
        }
    }
}
