package io.cmdemux.netdev;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Writes classic libpcap files (microsecond timestamps, little-endian), one record at a time. */
public final class PcapWriter implements AutoCloseable {
    // https://www.tcpdump.org/linktypes.html
    public static final int LINKTYPE_ETHERNET = 1;
    public static final int LINKTYPE_RAW = 101;
    public static final int LINKTYPE_NETLINK = 253;
    static final int MAGIC_MICROS = 0xa1b2c3d4;
    static final int SNAPLEN = 262144;

    private final OutputStream out;
    private final ByteBuffer recordHeader = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);

    public PcapWriter(OutputStream out, int linktype) throws IOException {
        this.out = new BufferedOutputStream(out, 1 << 16);
        ByteBuffer h = ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN);
        h.putInt(MAGIC_MICROS)
                .putShort((short) 2)
                .putShort((short) 4)
                .putInt(0)
                .putInt(0)
                .putInt(SNAPLEN)
                .putInt(linktype);
        this.out.write(h.array());
    }

    public void write(long timestampMicros, byte[] packet) throws IOException {
        write(timestampMicros, packet, 0, packet.length);
    }

    public void write(long timestampMicros, byte[] packet, int offset, int length) throws IOException {
        if (length > SNAPLEN) {
            throw new IOException("packet of " + length + " bytes exceeds the snap length " + SNAPLEN);
        }
        recordHeader.clear();
        recordHeader
                .putInt((int) (timestampMicros / 1_000_000))
                .putInt((int) (timestampMicros % 1_000_000))
                .putInt(length)
                .putInt(length);
        out.write(recordHeader.array());
        out.write(packet, offset, length);
    }

    /**
     * Writes one netlink message with the 16-byte pseudo header that LINKTYPE_NETLINK records carry
     * (the DLT_LINUX_SLL layout: packet type, ARPHRD_NETLINK, address length, address, and the
     * netlink protocol in the protocol field), as nlmon captures have it.
     */
    public void writeNetlink(long timestampMicros, int netlinkProtocol, byte[] message) throws IOException {
        byte[] rec = new byte[NETLINK_PSEUDO_HEADER + message.length];
        ByteBuffer b = ByteBuffer.wrap(rec).order(ByteOrder.BIG_ENDIAN);
        b.putShort((short) 4)
                .putShort((short) ARPHRD_NETLINK)
                .putShort((short) 0)
                .putLong(0)
                .putShort((short) netlinkProtocol);
        System.arraycopy(message, 0, rec, NETLINK_PSEUDO_HEADER, message.length);
        write(timestampMicros, rec);
    }

    public static final int NETLINK_PSEUDO_HEADER = 16;
    public static final int ARPHRD_NETLINK = 824;

    @Override
    public void close() throws IOException {
        out.close();
    }
}
