package io.cmdemux.netdev;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * One netlink message: the nlmsghdr fields and a read-only view of the whole message. Netlink is
 * host-endian; every view is in native order.
 */
public final class NlMessage {
    // <linux/netlink.h>
    public static final int HEADER_SIZE = 16;
    public static final int NLMSG_NOOP = 1;
    public static final int NLMSG_ERROR = 2;
    public static final int NLMSG_DONE = 3;
    public static final int NLMSG_OVERRUN = 4;
    public static final int NLM_F_REQUEST = 0x01;
    public static final int NLM_F_MULTI = 0x02;
    public static final int NLM_F_ACK = 0x04;
    public static final int NLM_F_DUMP_INTR = 0x10;
    public static final int NLM_F_ROOT = 0x100;
    public static final int NLM_F_MATCH = 0x200;
    public static final int NLM_F_DUMP = NLM_F_ROOT | NLM_F_MATCH;
    public static final int NLM_F_CREATE = 0x400;
    /** In an NLMSG_ERROR reply: the error carries extended-ack TLVs. */
    public static final int NLM_F_ACK_TLVS = 0x200;
    /** In an NLMSG_ERROR reply: only the request's header is echoed, not its payload. */
    public static final int NLM_F_CAPPED = 0x100;
    public static final int NLMSG_ERROR_ATTR_MSG = 1;

    private final ByteBuffer raw;
    private final int type;
    private final int flags;
    private final int seq;
    private final int pid;
    private final int offset;

    private NlMessage(ByteBuffer raw, int offset) {
        this.raw = raw;
        this.offset = offset;
        this.type = Short.toUnsignedInt(raw.getShort(4));
        this.flags = Short.toUnsignedInt(raw.getShort(6));
        this.seq = raw.getInt(8);
        this.pid = raw.getInt(12);
    }

    /**
     * Splits a datagram into its messages. The last message may lack its alignment padding; any
     * other trailing bytes are a truncated message and throw.
     */
    public static List<NlMessage> split(ByteBuffer datagram) throws MalformedException {
        ByteBuffer buf = datagram.duplicate().order(ByteOrder.nativeOrder());
        int base = buf.position();
        int end = buf.limit();
        List<NlMessage> out = new ArrayList<>(4);
        int pos = base;
        while (end - pos >= HEADER_SIZE) {
            int len = buf.getInt(pos);
            if (len < HEADER_SIZE) {
                throw new MalformedException(
                        pos - base, "nlmsg_len " + Integer.toUnsignedString(len) + " below header size");
            }
            if (len > end - pos) {
                throw new MalformedException(
                        pos - base, "nlmsg_len " + len + " exceeds the " + (end - pos) + " bytes left");
            }
            ByteBuffer one = buf.slice(pos, len).asReadOnlyBuffer().order(ByteOrder.nativeOrder());
            out.add(new NlMessage(one, pos - base));
            pos += align(len);
        }
        // Fewer than 16 bytes after the last message can only be a message cut short: the kernel
        // sends whole, aligned messages, and iproute2 rejects such a tail ("Remnant of size").
        // Dropping it silently would turn a truncated dump or capture into a shorter valid one.
        if (pos < end) {
            throw new MalformedException(
                    pos - base, (end - pos) + " bytes after the last message are shorter than a header");
        }
        return out;
    }

    /** Parses exactly one message, e.g. one record of a capture file. */
    public static NlMessage of(byte[] bytes) throws MalformedException {
        List<NlMessage> all = split(ByteBuffer.wrap(bytes));
        if (all.size() != 1) {
            throw new MalformedException(0, "expected one netlink message, found " + all.size());
        }
        return all.get(0);
    }

    public static int align(int len) {
        return (len + 3) & ~3;
    }

    public int type() {
        return type;
    }

    public int flags() {
        return flags;
    }

    public int seq() {
        return seq;
    }

    public int pid() {
        return pid;
    }

    /** Offset of this message in the datagram it came from. */
    public int offset() {
        return offset;
    }

    public int length() {
        return raw.limit();
    }

    /** The whole message, header included, as a read-only native-order view. */
    public ByteBuffer raw() {
        return raw.duplicate().order(ByteOrder.nativeOrder());
    }

    public byte[] toBytes() {
        byte[] b = new byte[raw.limit()];
        raw.get(0, b);
        return b;
    }

    /** For NLMSG_ERROR: the negative errno, or 0 for an ACK. */
    public int error() throws MalformedException {
        if (raw.limit() < HEADER_SIZE + 4) {
            throw new MalformedException(offset, "NLMSG_ERROR without an error code");
        }
        return raw.getInt(HEADER_SIZE);
    }

    /** For NLMSG_ERROR with extended ack: the kernel's message, or null. */
    public String extAckMessage() {
        if ((flags & NLM_F_ACK_TLVS) == 0 || raw.limit() < HEADER_SIZE + 4 + HEADER_SIZE) {
            return null;
        }
        int origLen = raw.getInt(HEADER_SIZE + 4);
        // With NLM_F_CAPPED only the original header is echoed back.
        int tlvStart =
                HEADER_SIZE + 4 + ((flags & NLM_F_CAPPED) != 0 ? HEADER_SIZE : align(Math.max(origLen, HEADER_SIZE)));
        if (tlvStart >= raw.limit()) {
            return null;
        }
        try {
            Attributes tlv = Attributes.parse(raw, tlvStart, raw.limit());
            return tlv.has(NLMSG_ERROR_ATTR_MSG) ? tlv.string(NLMSG_ERROR_ATTR_MSG) : null;
        } catch (MalformedException e) {
            return null;
        }
    }

    @Override
    public String toString() {
        return "nlmsg{type=" + type + ", flags=0x" + Integer.toHexString(flags) + ", seq=" + seq + ", len="
                + raw.limit() + "}";
    }
}
