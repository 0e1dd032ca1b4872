package io.cmdemux.observer.nldev;

import io.cmdemux.netdev.Attributes;
import io.cmdemux.netdev.MalformedException;
import io.cmdemux.netdev.NlMessage;
import io.cmdemux.netdev.NlRequest;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/** The nldev messages of NETLINK_RDMA that `rdma dev`, `rdma link` and `rdma res show cm_id` use. */
public final class Nldev {
    // include/uapi/rdma/rdma_netlink.h
    public static final int RDMA_NL_NLDEV = 5;
    public static final int RDMA_NLDEV_CMD_GET = 1;
    public static final int RDMA_NLDEV_CMD_PORT_GET = 5;
    public static final int RDMA_NLDEV_CMD_RES_CM_ID_GET = 11;
    public static final int RDMA_NLDEV_ATTR_DEV_INDEX = 1;
    public static final int RDMA_NLDEV_ATTR_DEV_NAME = 2;
    public static final int RDMA_NLDEV_ATTR_PORT_INDEX = 3;
    public static final int RDMA_NLDEV_ATTR_PORT_STATE = 12;
    public static final int RDMA_NLDEV_ATTR_RES_STATE = 27;
    public static final int RDMA_NLDEV_ATTR_RES_PID = 28;
    public static final int RDMA_NLDEV_ATTR_RES_KERN_NAME = 29;
    public static final int RDMA_NLDEV_ATTR_RES_CM_ID = 30;
    public static final int RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY = 31;
    public static final int RDMA_NLDEV_ATTR_RES_PS = 32;
    public static final int RDMA_NLDEV_ATTR_RES_SRC_ADDR = 33;
    public static final int RDMA_NLDEV_ATTR_RES_DST_ADDR = 34;
    public static final int RDMA_NLDEV_ATTR_NDEV_INDEX = 50;
    public static final int RDMA_NLDEV_ATTR_NDEV_NAME = 51;
    public static final int RDMA_NLDEV_ATTR_RES_CM_IDN = 63;
    /** RDMA_NLA_F_MANDATORY: a flag bit in nla_type that rdma_netlink adds to NLA_F_NESTED and NET_BYTEORDER. */
    static final int RDMA_NLA_F_MANDATORY = 1 << 13;
    private static final int NLA_HDRLEN = 4;
    // <linux/socket.h>, <linux/in6.h>: sockaddr_in and sockaddr_in6 as the kernel copies them into SRC_ADDR.
    private static final int AF_INET = 2;
    private static final int AF_INET6 = 10;

    private Nldev() {}

    /** RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, op). */
    public static int type(int op) {
        return (RDMA_NL_NLDEV << 10) + op;
    }

    /** A dump request; PORT_GET and RES_CM_ID_GET dump one device, named by index, as `rdma` asks for them. */
    public static ByteBuffer dumpRequest(int op, int seq, Integer deviceIndex) {
        NlRequest r = new NlRequest(type(op), NlMessage.NLM_F_REQUEST | NlMessage.NLM_F_DUMP, seq);
        if (deviceIndex != null) {
            r.u32(RDMA_NLDEV_ATTR_DEV_INDEX, deviceIndex);
        }
        return r.build();
    }

    private static Attributes top(NlMessage m) throws MalformedException {
        return Attributes.parse(m.raw(), NlMessage.HEADER_SIZE, m.length());
    }

    /** A GET or PORT_GET reply. */
    public static RdmaLink link(NlMessage m) throws MalformedException {
        Attributes a = top(m);
        require(a, RDMA_NLDEV_ATTR_DEV_INDEX, "RDMA_NLDEV_ATTR_DEV_INDEX", m);
        require(a, RDMA_NLDEV_ATTR_DEV_NAME, "RDMA_NLDEV_ATTR_DEV_NAME", m);
        boolean port = m.type() == type(RDMA_NLDEV_CMD_PORT_GET);
        return new RdmaLink(a.u32(RDMA_NLDEV_ATTR_DEV_INDEX), a.string(RDMA_NLDEV_ATTR_DEV_NAME),
                port && a.has(RDMA_NLDEV_ATTR_PORT_INDEX) ? a.u32(RDMA_NLDEV_ATTR_PORT_INDEX) : 0,
                a.has(RDMA_NLDEV_ATTR_PORT_STATE) ? a.u8(RDMA_NLDEV_ATTR_PORT_STATE) : 0,
                a.has(RDMA_NLDEV_ATTR_NDEV_INDEX) ? a.u32(RDMA_NLDEV_ATTR_NDEV_INDEX) : 0,
                a.has(RDMA_NLDEV_ATTR_NDEV_NAME) ? a.string(RDMA_NLDEV_ATTR_NDEV_NAME) : null);
    }

    /** The cm_id entries of one RES_CM_ID_GET reply (one device's, possibly split across several replies). */
    public static List<CmIdEntry> cmIds(NlMessage m) throws MalformedException {
        Attributes a = top(m);
        require(a, RDMA_NLDEV_ATTR_DEV_INDEX, "RDMA_NLDEV_ATTR_DEV_INDEX", m);
        require(a, RDMA_NLDEV_ATTR_DEV_NAME, "RDMA_NLDEV_ATTR_DEV_NAME", m);
        int devIndex = a.u32(RDMA_NLDEV_ATTR_DEV_INDEX);
        String dev = a.string(RDMA_NLDEV_ATTR_DEV_NAME);
        List<CmIdEntry> out = new ArrayList<>();
        if (!a.has(RDMA_NLDEV_ATTR_RES_CM_ID)) {
            return out;
        }
        int from = a.offsetOf(RDMA_NLDEV_ATTR_RES_CM_ID) + NLA_HDRLEN;
        int to = from + a.length(RDMA_NLDEV_ATTR_RES_CM_ID);
        ByteBuffer b = m.raw();
        int pos = from;
        // The nest holds one RES_CM_ID_ENTRY per cm_id, all of one type: Attributes keeps only the last of a type.
        while (to - pos >= NLA_HDRLEN) {
            int len = Short.toUnsignedInt(b.getShort(pos));
            int type = Short.toUnsignedInt(b.getShort(pos + 2)) & Attributes.NLA_TYPE_MASK & ~RDMA_NLA_F_MANDATORY;
            if (len < NLA_HDRLEN || len > to - pos) {
                throw new MalformedException(m.offset() + pos, "cm_id entry of length " + len + " with "
                        + (to - pos) + " bytes left in RDMA_NLDEV_ATTR_RES_CM_ID");
            }
            if (type == RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY) {
                out.add(entry(dev, devIndex, Attributes.parse(b, pos + NLA_HDRLEN, pos + len), m));
            }
            pos += Attributes.align(len);
        }
        return out;
    }

    private static CmIdEntry entry(String dev, int devIndex, Attributes e, NlMessage m) throws MalformedException {
        require(e, RDMA_NLDEV_ATTR_RES_CM_IDN, "RDMA_NLDEV_ATTR_RES_CM_IDN", m);
        require(e, RDMA_NLDEV_ATTR_RES_STATE, "RDMA_NLDEV_ATTR_RES_STATE", m);
        return new CmIdEntry(dev, devIndex,
                e.has(RDMA_NLDEV_ATTR_PORT_INDEX) ? e.u32(RDMA_NLDEV_ATTR_PORT_INDEX) : 0,
                e.u32(RDMA_NLDEV_ATTR_RES_CM_IDN), e.u8(RDMA_NLDEV_ATTR_RES_STATE),
                e.has(RDMA_NLDEV_ATTR_RES_PS) ? e.u32(RDMA_NLDEV_ATTR_RES_PS) : 0,
                e.has(RDMA_NLDEV_ATTR_RES_PID) ? e.u32(RDMA_NLDEV_ATTR_RES_PID) : 0,
                e.has(RDMA_NLDEV_ATTR_RES_KERN_NAME) ? e.string(RDMA_NLDEV_ATTR_RES_KERN_NAME) : null,
                sockaddr(e, RDMA_NLDEV_ATTR_RES_SRC_ADDR, m), sockaddr(e, RDMA_NLDEV_ATTR_RES_DST_ADDR, m));
    }

    private static InetSocketAddress sockaddr(Attributes e, int type, NlMessage m) throws MalformedException {
        if (!e.has(type)) {
            return null;
        }
        ByteBuffer p = e.payload(type).order(ByteOrder.LITTLE_ENDIAN);
        int len = p.remaining();
        if (len < 2) {
            throw new MalformedException(m.offset() + e.offsetOf(type), "sockaddr of " + len + " bytes");
        }
        int base = p.position();
        int family = Short.toUnsignedInt(p.getShort(base));
        int port = Short.toUnsignedInt(Short.reverseBytes(p.getShort(base + 2)));
        byte[] addr;
        int scope = 0;
        if (family == AF_INET && len >= 8) {
            addr = new byte[4];
            p.get(base + 4, addr);
        } else if (family == AF_INET6 && len >= 28) {
            addr = new byte[16];
            p.get(base + 8, addr);
            scope = p.getInt(base + 24);
        } else {
            return null;
        }
        try {
            InetAddress a = family == AF_INET6 && scope != 0
                    ? java.net.Inet6Address.getByAddress(null, addr, scope) : InetAddress.getByAddress(addr);
            return new InetSocketAddress(a, port);
        } catch (UnknownHostException ex) {
            throw new MalformedException(m.offset() + e.offsetOf(type), "address: " + ex.getMessage());
        }
    }

    private static void require(Attributes a, int type, String name, NlMessage m) throws MalformedException {
        if (!a.has(type)) {
            throw new MalformedException(m.offset(), "nldev message type " + m.type() + " without " + name);
        }
    }
}
