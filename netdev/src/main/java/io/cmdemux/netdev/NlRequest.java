package io.cmdemux.netdev;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;

/** Builds one netlink message: header, fixed family header, then attributes (nests allowed). */
public final class NlRequest {
    private ByteBuffer buf = ByteBuffer.allocate(256).order(ByteOrder.nativeOrder());
    private final Deque<Integer> nests = new ArrayDeque<>();

    public NlRequest(int type, int flags, int seq) {
        buf.putInt(0).putShort((short) type).putShort((short) flags).putInt(seq).putInt(0);
    }

    private void ensure(int n) {
        if (buf.remaining() < n) {
            ByteBuffer bigger = ByteBuffer.allocate(Math.max(buf.capacity() * 2, buf.position() + n))
                    .order(ByteOrder.nativeOrder());
            buf.flip();
            bigger.put(buf);
            buf = bigger;
        }
    }

    private void pad() {
        int p = NlMessage.align(buf.position()) - buf.position();
        ensure(p);
        for (int i = 0; i < p; i++) {
            buf.put((byte) 0);
        }
    }

    /** Raw fixed-header bytes (ifinfomsg, rtgenmsg, ...), padded to 4. */
    public NlRequest header(byte[] fixed) {
        ensure(fixed.length + 4);
        buf.put(fixed);
        pad();
        return this;
    }

    public NlRequest attr(int type, byte[] payload) {
        ensure(4 + payload.length + 4);
        buf.putShort((short) (4 + payload.length)).putShort((short) type).put(payload);
        pad();
        return this;
    }

    public NlRequest u8(int type, int v) {
        return attr(type, new byte[] {(byte) v});
    }

    public NlRequest u16(int type, int v) {
        return attr(type, ByteBuffer.allocate(2).order(ByteOrder.nativeOrder()).putShort((short) v).array());
    }

    public NlRequest u32(int type, int v) {
        return attr(type, ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(v).array());
    }

    public NlRequest u64(int type, long v) {
        return attr(type, ByteBuffer.allocate(8).order(ByteOrder.nativeOrder()).putLong(v).array());
    }

    public NlRequest string(int type, String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        byte[] z = new byte[b.length + 1];
        System.arraycopy(b, 0, z, 0, b.length);
        return attr(type, z);
    }

    public NlRequest beginNest(int type) {
        ensure(4);
        nests.push(buf.position());
        buf.putShort((short) 0).putShort((short) (type | Attributes.NLA_F_NESTED));
        return this;
    }

    public NlRequest endNest() {
        int start = nests.pop();
        buf.putShort(start, (short) (buf.position() - start));
        return this;
    }

    /** The finished message, with nlmsg_len filled in. */
    public ByteBuffer build() {
        if (!nests.isEmpty()) {
            throw new IllegalStateException("unclosed nest");
        }
        ByteBuffer out = buf.duplicate().order(ByteOrder.nativeOrder());
        out.flip();
        out.putInt(0, out.limit());
        return out;
    }

    public byte[] toBytes() {
        ByteBuffer b = build();
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }
}
