package io.cmdemux.control.protocol;

import io.cmdemux.gid.Gid;
import io.cmdemux.ingress.resolve.IngressKey;
import io.cmdemux.ingress.resolve.NetworkType;
import io.cmdemux.ingress.resolve.PacketMeta;
import io.cmdemux.ingress.resolve.QpType;
import io.cmdemux.netdev.HwAddr;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.OptionalInt;

/**
 * The META record: {@link PacketMeta} in 140 fixed bytes plus the ingress device name.
 * <pre>
 *   0 u8  networkType (0 IB, 1 RoCE v1, 2 RoCE v2)    30 u16 ingress port
 *   1 u8  flags (see F_*)                             32 u64 ingress GUID
 *   2 u8  cmaVersion                                  40 u16 ingress P_Key
 *   3 u8  ipVersion                                   42 u8  reserved
 *   4 u16 pkey                                        43 u8  qpType (ib_qp_type, 0 none)
 *   6 u16 bthPkey                                     44 16B dgid, 60 16B ourGid
 *   8 u64 serviceId                                   76 16B peerGid
 *  16 u32 localCommId                                 92 16B dstIp (IPv4 in bytes 0-3)
 *  20 u16 srcPort                                    108 16B srcIp
 *  22 u16 vlan (VID)                                 124 16B srcGid (all zero: unknown)
 *                                                   140 ...  ingress device name, UTF-8, 0-64 bytes
 *  24 6B  dmac
 * </pre>
 */
public final class MetaCodec {
    static final int FIXED = 140;
    static final int MAX_DEVICE_NAME = 64; // IB_DEVICE_NAME_MAX

    static final int F_SIDR = 0x01;
    static final int F_VLAN = 0x02;
    static final int F_DMAC = 0x04;
    static final int F_DGID = 0x08;
    static final int F_OUR_GID = 0x10;
    static final int F_PEER_GID = 0x20;
    static final int F_DST_IP = 0x40;
    static final int F_SRC_IP = 0x80;

    private MetaCodec() {}

    public static byte[] encode(PacketMeta m) {
        byte[] out = new byte[encodedLength(m)];
        write(Unpooled.wrappedBuffer(out).clear(), m);
        return out;
    }

    /** The length of {@code m}'s META value. */
    static int encodedLength(PacketMeta m) {
        String dev = m.key().device();
        return FIXED + (dev == null ? 0 : Math.min(MAX_DEVICE_NAME, ByteBufUtil.utf8Bytes(dev)));
    }

    /**
     * Writes {@code m}'s META value at {@code b}'s writer index: straight into the buffer a delivery
     * leaves in, with no array per field (this runs for every delivered request).
     */
    static void write(ByteBuf b, PacketMeta m) {
        int flags = (m.sidr() ? F_SIDR : 0)
                | (m.vlan().isPresent() ? F_VLAN : 0)
                | (m.dmac() != null && m.dmac().length() == 6 ? F_DMAC : 0)
                | (m.dgid() != null ? F_DGID : 0)
                | (m.ourGid() != null ? F_OUR_GID : 0)
                | (m.peerGid() != null ? F_PEER_GID : 0)
                | (m.dstIp() != null ? F_DST_IP : 0)
                | (m.srcIp() != null ? F_SRC_IP : 0);
        b.writeByte(m.networkType().ordinal());
        b.writeByte(flags);
        b.writeByte(m.cmaVersion());
        b.writeByte(m.ipVersion());
        b.writeShort(m.pkey());
        b.writeShort(m.bthPkey());
        b.writeLong(m.serviceId());
        b.writeInt((int) m.localCommId());
        b.writeShort(m.srcPort());
        b.writeShort(m.vlan().orElse(0));
        for (int i = 0; i < 6; i++) {
            b.writeByte((flags & F_DMAC) != 0 ? m.dmac().get(i) : 0);
        }
        b.writeShort(m.key().port());
        b.writeLong(m.key().guid());
        b.writeShort(m.key().pkey());
        b.writeByte(0);
        b.writeByte(m.qpType() == null ? 0 : m.qpType().code());
        writeGid(b, m.dgid());
        writeGid(b, m.ourGid());
        writeGid(b, m.peerGid());
        writeIp(b, m.dstIp());
        writeIp(b, m.srcIp());
        writeGid(b, m.srcGid());
        String dev = m.key().device();
        if (dev != null) {
            int n = ByteBufUtil.utf8Bytes(dev);
            if (n <= MAX_DEVICE_NAME) {
                ByteBufUtil.reserveAndWriteUtf8(b, dev, n); // writeUtf8 would ask for room for 3 bytes a char
            } else {
                b.writeBytes(dev.getBytes(StandardCharsets.UTF_8), 0, MAX_DEVICE_NAME);
            }
        }
    }

    public static PacketMeta decode(byte[] v) throws ProtocolException {
        if (v.length < FIXED || v.length > FIXED + MAX_DEVICE_NAME) {
            throw new ProtocolException(Wire.EBADMSG, 0, "META record of " + v.length + " bytes (expected " + FIXED
                    + "-" + (FIXED + MAX_DEVICE_NAME) + ")");
        }
        ByteBuffer b = ByteBuffer.wrap(v);
        int nt = b.get() & 0xff;
        if (nt >= NetworkType.values().length) {
            throw new ProtocolException(Wire.EBADMSG, 0, "unknown network type " + nt);
        }
        int flags = b.get() & 0xff;
        int cmaVersion = b.get() & 0xff;
        int ipVersion = b.get() & 0xff;
        int pkey = b.getShort() & 0xffff;
        int bthPkey = b.getShort() & 0xffff;
        long serviceId = b.getLong();
        long localCommId = b.getInt() & 0xffffffffL;
        int srcPort = b.getShort() & 0xffff;
        int vlan = b.getShort() & 0xffff;
        byte[] dmac = new byte[6];
        b.get(dmac);
        int port = b.getShort() & 0xffff;
        long guid = b.getLong();
        int keyPkey = b.getShort() & 0xffff;
        b.get();
        int qp = b.get() & 0xff;
        QpType qpType = null;
        if (qp != 0) {
            for (QpType t : QpType.values()) {
                if (t.code() == qp) {
                    qpType = t;
                }
            }
            if (qpType == null) {
                throw new ProtocolException(Wire.EBADMSG, 43, "unknown QP type " + qp);
            }
        }
        Gid dgid = gid(b, (flags & F_DGID) != 0);
        Gid ourGid = gid(b, (flags & F_OUR_GID) != 0);
        Gid peerGid = gid(b, (flags & F_PEER_GID) != 0);
        InetAddress dst = ip(b, (flags & F_DST_IP) != 0, ipVersion, 92);
        InetAddress src = ip(b, (flags & F_SRC_IP) != 0, ipVersion, 108);
        byte[] rawSrcGid = new byte[16];
        b.get(rawSrcGid);
        Gid srcGid = Gid.of(rawSrcGid).equals(Gid.ZERO) ? null : Gid.of(rawSrcGid);
        byte[] dev = new byte[b.remaining()];
        b.get(dev);
        return new PacketMeta(new IngressKey(new String(dev, StandardCharsets.UTF_8), port, guid, keyPkey),
                NetworkType.values()[nt], dgid, ourGid, peerGid, pkey, bthPkey, serviceId, cmaVersion, ipVersion,
                dst, src, srcPort, (flags & F_VLAN) != 0 ? OptionalInt.of(vlan) : OptionalInt.empty(),
                (flags & F_DMAC) != 0 ? HwAddr.of(dmac) : null,
                (flags & F_SIDR) != 0, localCommId, qpType, srcGid);
    }

    private static void writeGid(ByteBuf b, Gid g) {
        b.writeLong(g == null ? 0 : g.hi());
        b.writeLong(g == null ? 0 : g.lo());
    }

    private static void writeIp(ByteBuf b, InetAddress a) {
        int n = 0;
        if (a != null) {
            byte[] raw = a.getAddress();
            b.writeBytes(raw);
            n = raw.length;
        }
        b.writeZero(16 - n);
    }

    private static Gid gid(ByteBuffer b, boolean present) {
        byte[] raw = new byte[16];
        b.get(raw);
        return present ? Gid.of(raw) : null;
    }

    private static InetAddress ip(ByteBuffer b, boolean present, int ipVersion, int offset) throws ProtocolException {
        byte[] raw = new byte[16];
        b.get(raw);
        if (!present) {
            return null;
        }
        try {
            if (ipVersion == 4) {
                return InetAddress.getByAddress(Arrays.copyOf(raw, 4));
            }
            if (ipVersion == 6) {
                // getByAddress would turn ::ffff:a.b.c.d into an Inet4Address; the header's address stays IPv6.
                return java.net.Inet6Address.getByAddress(null, raw, null);
            }
        } catch (UnknownHostException e) {
            throw new ProtocolException(Wire.EBADMSG, offset, "bad address: " + e.getMessage());
        }
        throw new ProtocolException(Wire.EBADMSG, offset, "an IP address with IP version " + ipVersion);
    }
}
