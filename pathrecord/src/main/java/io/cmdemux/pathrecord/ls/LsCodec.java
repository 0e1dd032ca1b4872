package io.cmdemux.pathrecord.ls;

import io.cmdemux.gid.Gid;
import io.cmdemux.netdev.Attributes;
import io.cmdemux.netdev.MalformedException;
import io.cmdemux.netdev.NlMessage;
import io.cmdemux.pathrecord.PathRecord;
import io.cmdemux.pathrecord.PathRecordData;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * The RDMA_NL_LS codec, both directions, in the kernel's byte layout: netlink is host-endian except
 * where rdma_netlink.h says BE (GIDs, IP addresses) and the PathRecord wire image (always BE).
 * Pure: bytes in, values out, and the reverse. Bad input throws {@link MalformedException} with the
 * offset inside the message.
 */
public final class LsCodec {
    private static final ByteOrder HOST = ByteOrder.nativeOrder();
    private static final int HDR = NlMessage.HEADER_SIZE;
    private static final int NLA_HDRLEN = 4;
    /** NLMSG_ALIGN(sizeof(struct rdma_ls_resolve_header)): attributes start at 16 + 68. */
    public static final int RESOLVE_ATTRS_OFFSET = HDR + NlMessage.align(Ls.RESOLVE_HEADER_SIZE);
    public static final int IP_RESOLVE_ATTRS_OFFSET = HDR + NlMessage.align(Ls.IP_RESOLVE_HEADER_SIZE);

    private LsCodec() {}

    // ------------------------------------------------------------------ decode

    /** Decodes one message; its type must belong to RDMA_NL_LS. */
    public static LsMessage decode(NlMessage m) throws MalformedException {
        ByteBuffer b = m.raw();
        int type = m.type();
        if (Ls.client(type) != Ls.RDMA_NL_LS) {
            throw new MalformedException(4, "nlmsg_type 0x" + Integer.toHexString(type) + " is RDMA netlink client "
                    + Ls.client(type) + ", not RDMA_NL_LS (" + Ls.RDMA_NL_LS + ")");
        }
        int op = Ls.op(type);
        boolean request = (m.flags() & NlMessage.NLM_F_REQUEST) != 0;
        switch (op) {
            case Ls.OP_RESOLVE:
                return request ? resolveRequest(m, b) : resolveResponse(m, b);
            case Ls.OP_SET_TIMEOUT:
                return setTimeout(m, b);
            case Ls.OP_IP_RESOLVE:
                return request ? ipResolveRequest(m, b) : ipResolveResponse(m, b);
            default:
                // ibacm answers an unknown op with an invalid-request error (acm_nl_receive).
                throw new MalformedException(4, "RDMA_NL_LS op " + op + " is not RESOLVE, SET_TIMEOUT or IP_RESOLVE");
        }
    }

    /**
     * Decodes a RESOLVE request the way ibacm's acm_nl_process_resolve reads it, but strictly: every
     * known attribute must have its exact size, and an unknown attribute with RDMA_NLA_F_MANDATORY
     * fails the request (acm_nl_parse_path_attr: "We can not ignore a mandatory attribute").
     */
    private static LsMessage.ResolveRequest resolveRequest(NlMessage m, ByteBuffer b) throws MalformedException {
        int len = m.length();
        if (len < HDR + Ls.RESOLVE_HEADER_SIZE) {
            throw new MalformedException(HDR, "RESOLVE payload of " + (len - HDR) + " bytes is shorter than the "
                    + Ls.RESOLVE_HEADER_SIZE + "-byte rdma_ls_resolve_header");
        }
        int nameLen = 0;
        while (nameLen < Ls.DEVICE_NAME_MAX && b.get(HDR + nameLen) != 0) {
            nameLen++;
        }
        if (nameLen == Ls.DEVICE_NAME_MAX) {
            throw new MalformedException(
                    HDR, "device_name has no NUL within its 64 bytes (the kernel writes it with strscpy_pad)");
        }
        if (nameLen == 0) {
            throw new MalformedException(HDR, "device_name is empty");
        }
        byte[] name = new byte[nameLen];
        b.get(HDR, name);
        int port = Byte.toUnsignedInt(b.get(HDR + Ls.DEVICE_NAME_MAX));
        int pathUse = Byte.toUnsignedInt(b.get(HDR + Ls.DEVICE_NAME_MAX + 1));

        OptionalLong serviceId = OptionalLong.empty();
        Gid dgid = null;
        Gid sgid = null;
        OptionalInt tclass = OptionalInt.empty();
        OptionalInt pkey = OptionalInt.empty();
        OptionalInt qos = OptionalInt.empty();
        int ignored = 0;
        int pos = Math.min(RESOLVE_ATTRS_OFFSET, len);
        while (len - pos >= NLA_HDRLEN) {
            int alen = Short.toUnsignedInt(b.getShort(pos));
            int rawType = Short.toUnsignedInt(b.getShort(pos + 2));
            checkLength(pos, alen, len - pos, rawType);
            int t = rawType & Ls.NLA_TYPE_MASK;
            int p = pos + NLA_HDRLEN;
            int plen = alen - NLA_HDRLEN;
            switch (t) {
                case Ls.ATTR_SERVICE_ID:
                    exact(pos, "SERVICE_ID", plen, 8);
                    serviceId = OptionalLong.of(b.getLong(p));
                    break;
                case Ls.ATTR_DGID:
                    exact(pos, "DGID", plen, 16);
                    dgid = gid(b, p);
                    break;
                case Ls.ATTR_SGID:
                    exact(pos, "SGID", plen, 16);
                    sgid = gid(b, p);
                    break;
                case Ls.ATTR_TCLASS:
                    exact(pos, "TCLASS", plen, 1);
                    tclass = OptionalInt.of(Byte.toUnsignedInt(b.get(p)));
                    break;
                case Ls.ATTR_PKEY:
                    exact(pos, "PKEY", plen, 2);
                    pkey = OptionalInt.of(Short.toUnsignedInt(b.getShort(p)));
                    break;
                case Ls.ATTR_QOS_CLASS:
                    exact(pos, "QOS_CLASS", plen, 2);
                    qos = OptionalInt.of(Short.toUnsignedInt(b.getShort(p)));
                    break;
                default:
                    if ((rawType & Ls.NLA_F_MANDATORY) != 0) {
                        throw new MalformedException(pos, "unknown mandatory attribute type " + t + " (nla_type 0x"
                                + Integer.toHexString(rawType) + ") in a RESOLVE request");
                    }
                    ignored++;
            }
            pos += Attributes.align(alen);
        }
        return new LsMessage.ResolveRequest(m.seq(), m.pid(), new String(name, StandardCharsets.UTF_8), port, pathUse,
                serviceId, dgid, sgid, tclass, pkey, qos, ignored);
    }

    private static LsMessage.IpResolveRequest ipResolveRequest(NlMessage m, ByteBuffer b) throws MalformedException {
        int len = m.length();
        if (len < HDR + Ls.IP_RESOLVE_HEADER_SIZE) {
            throw new MalformedException(HDR,
                    "IP_RESOLVE payload of " + (len - HDR)
                            + " bytes is shorter than the 4-byte rdma_ls_ip_resolve_header");
        }
        int ifindex = b.getInt(HDR);
        InetAddress ip = null;
        int pos = IP_RESOLVE_ATTRS_OFFSET;
        while (len - pos >= NLA_HDRLEN) {
            int alen = Short.toUnsignedInt(b.getShort(pos));
            int rawType = Short.toUnsignedInt(b.getShort(pos + 2));
            checkLength(pos, alen, len - pos, rawType);
            int t = rawType & Ls.NLA_TYPE_MASK;
            int plen = alen - NLA_HDRLEN;
            if (t == Ls.ATTR_IPV4) {
                exact(pos, "IPV4", plen, 4);
                ip = address(b, pos + NLA_HDRLEN, 4);
            } else if (t == Ls.ATTR_IPV6) {
                exact(pos, "IPV6", plen, 16);
                ip = address(b, pos + NLA_HDRLEN, 16);
            } else if ((rawType & Ls.NLA_F_MANDATORY) != 0) {
                throw new MalformedException(
                        pos, "unknown mandatory attribute type " + t + " in an IP_RESOLVE request");
            }
            pos += Attributes.align(alen);
        }
        if (ip == null) {
            throw new MalformedException(HDR, "IP_RESOLVE request without an IPV4 or IPV6 attribute");
        }
        return new LsMessage.IpResolveRequest(m.seq(), m.pid(), ifindex, ip);
    }

    /**
     * SET_TIMEOUT as ib_nl_handle_set_timeout parses it: nla_parse_deprecated masks only the nested
     * and byte-order bits, so the timeout counts only with nla_type exactly LS_NLA_TYPE_TIMEOUT and at
     * least 4 bytes (NLA_U32).
     */
    private static LsMessage.SetTimeout setTimeout(NlMessage m, ByteBuffer b) throws MalformedException {
        int len = m.length();
        OptionalInt timeout = OptionalInt.empty();
        int pos = HDR;
        while (len - pos >= NLA_HDRLEN) {
            int alen = Short.toUnsignedInt(b.getShort(pos));
            int rawType = Short.toUnsignedInt(b.getShort(pos + 2));
            checkLength(pos, alen, len - pos, rawType);
            int t = rawType & ~(Ls.NLA_F_NESTED | Ls.NLA_F_NET_BYTEORDER) & 0xffff;
            if (t == Ls.ATTR_TIMEOUT) {
                if (alen - NLA_HDRLEN < 4) {
                    throw new MalformedException(pos, "TIMEOUT has " + (alen - NLA_HDRLEN) + " bytes, NLA_U32 needs 4");
                }
                timeout = OptionalInt.of(b.getInt(pos + NLA_HDRLEN));
            }
            pos += Attributes.align(alen);
        }
        return new LsMessage.SetTimeout(m.seq(), m.pid(), m.flags(), timeout);
    }

    /** A RESOLVE reply the way ib_nl_process_good_resolve_rsp walks it: nla_type compared exactly. */
    private static LsMessage.ResolveResponse resolveResponse(NlMessage m, ByteBuffer b) throws MalformedException {
        int len = m.length();
        List<PathRecordData> recs = new ArrayList<>(3);
        int other = 0;
        int pos = HDR;
        while (len - pos >= NLA_HDRLEN) {
            int alen = Short.toUnsignedInt(b.getShort(pos));
            int rawType = Short.toUnsignedInt(b.getShort(pos + 2));
            checkLength(pos, alen, len - pos, rawType);
            if (rawType == Ls.ATTR_PATH_RECORD && alen - NLA_HDRLEN == PathRecordData.SIZE) {
                int flags = b.getInt(pos + NLA_HDRLEN);
                byte[] wire = new byte[PathRecord.WIRE_SIZE];
                b.get(pos + NLA_HDRLEN + 8, wire);
                recs.add(new PathRecordData(flags, PathRecord.read(wire, 0)));
            } else {
                other++;
            }
            pos += Attributes.align(alen);
        }
        return new LsMessage.ResolveResponse(m.seq(), m.pid(), m.flags(), recs, other);
    }

    private static LsMessage.IpResolveResponse ipResolveResponse(NlMessage m, ByteBuffer b) throws MalformedException {
        int len = m.length();
        Gid dgid = null;
        int pos = HDR;
        while (len - pos >= NLA_HDRLEN) {
            int alen = Short.toUnsignedInt(b.getShort(pos));
            int rawType = Short.toUnsignedInt(b.getShort(pos + 2));
            checkLength(pos, alen, len - pos, rawType);
            if (rawType == Ls.ATTR_DGID && alen - NLA_HDRLEN == 16) {
                dgid = gid(b, pos + NLA_HDRLEN);
            }
            pos += Attributes.align(alen);
        }
        return new LsMessage.IpResolveResponse(m.seq(), m.pid(), m.flags(), dgid);
    }

    private static void checkLength(int pos, int alen, int left, int rawType) throws MalformedException {
        if (alen < NLA_HDRLEN) {
            throw new MalformedException(pos,
                    "attribute nla_type 0x" + Integer.toHexString(rawType) + " has nla_len " + alen
                            + ", below its 4-byte header");
        }
        if (alen > left) {
            throw new MalformedException(pos,
                    "attribute nla_type 0x" + Integer.toHexString(rawType) + " has nla_len " + alen + " but only "
                            + left + " bytes remain");
        }
    }

    private static void exact(int pos, String name, int have, int need) throws MalformedException {
        if (have != need) {
            throw new MalformedException(pos, name + " has " + have + " bytes, must be " + need);
        }
    }

    /** GIDs are big-endian whatever the host (struct rdma_nla_ls_gid). */
    private static Gid gid(ByteBuffer b, int p) {
        long hi = b.getLong(p);
        long lo = b.getLong(p + 8);
        return HOST == ByteOrder.BIG_ENDIAN ? new Gid(hi, lo) : new Gid(Long.reverseBytes(hi), Long.reverseBytes(lo));
    }

    private static InetAddress address(ByteBuffer b, int p, int n) {
        byte[] a = new byte[n];
        b.get(p, a);
        try {
            return InetAddress.getByAddress(a);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    // ------------------------------------------------------------------ encode

    /** A growable host-order message under construction; padding bytes stay zero, as nla_put leaves them. */
    private static final class Writer {
        private byte[] a;
        private ByteBuffer b;

        Writer(int capacity, int type, int flags, int seq, int pid) {
            a = new byte[capacity];
            b = ByteBuffer.wrap(a).order(HOST);
            b.putInt(0).putShort((short) type).putShort((short) flags).putInt(seq).putInt(pid);
        }

        void ensure(int n) {
            if (b.remaining() < n) {
                byte[] bigger = new byte[Math.max(a.length * 2, b.position() + n)];
                System.arraycopy(a, 0, bigger, 0, b.position());
                int pos = b.position();
                a = bigger;
                b = ByteBuffer.wrap(a).order(HOST);
                b.position(pos);
            }
        }

        ByteBuffer attr(int type, int payload) {
            int total = Attributes.align(NLA_HDRLEN + payload);
            ensure(total);
            b.putShort((short) (NLA_HDRLEN + payload)).putShort((short) type);
            return b;
        }

        void pad() {
            b.position(Attributes.align(b.position()));
        }

        byte[] finish() {
            int n = b.position();
            ByteBuffer.wrap(a).order(HOST).putInt(0, n);
            return n == a.length ? a : java.util.Arrays.copyOf(a, n);
        }
    }

    /**
     * A RESOLVE request laid out as ib_nl_make_request / ib_nl_set_path_rec_attrs write it: header
     * padded to 68 bytes, then SERVICE_ID, DGID, SGID, TCLASS, PKEY, QOS_CLASS, each present one with
     * RDMA_NLA_F_MANDATORY, NLM_F_REQUEST, nlmsg_pid 0. Used to play the kernel in tests and benchmarks.
     */
    public static byte[] encodeResolveRequest(LsMessage.ResolveRequest r) {
        Writer w = new Writer(256, Ls.TYPE_RESOLVE, NlMessage.NLM_F_REQUEST, r.seq(), r.portId());
        byte[] name = r.device().getBytes(StandardCharsets.UTF_8);
        if (name.length >= Ls.DEVICE_NAME_MAX) {
            throw new IllegalArgumentException(
                    "device name of " + name.length + " bytes does not fit LS_DEVICE_NAME_MAX with its NUL");
        }
        w.b.put(name);
        w.b.position(HDR + Ls.DEVICE_NAME_MAX);
        w.b.put((byte) r.port()).put((byte) r.pathUse());
        w.pad();
        if (r.serviceId().isPresent()) {
            w.attr(Ls.NLA_F_MANDATORY | Ls.ATTR_SERVICE_ID, 8).putLong(r.serviceId().getAsLong());
        }
        if (r.dgid() != null) {
            putGid(w.attr(Ls.NLA_F_MANDATORY | Ls.ATTR_DGID, 16), r.dgid());
        }
        if (r.sgid() != null) {
            putGid(w.attr(Ls.NLA_F_MANDATORY | Ls.ATTR_SGID, 16), r.sgid());
        }
        if (r.tclass().isPresent()) {
            w.attr(Ls.NLA_F_MANDATORY | Ls.ATTR_TCLASS, 1).put((byte) r.tclass().getAsInt());
            w.pad();
        }
        if (r.pkey().isPresent()) {
            w.attr(Ls.NLA_F_MANDATORY | Ls.ATTR_PKEY, 2).putShort((short) r.pkey().getAsInt());
            w.pad();
        }
        if (r.qosClass().isPresent()) {
            w.attr(Ls.NLA_F_MANDATORY | Ls.ATTR_QOS_CLASS, 2).putShort((short) r.qosClass().getAsInt());
            w.pad();
        }
        return w.finish();
    }

    /**
     * A good RESOLVE reply: the request's type and seq, no NLM_F_REQUEST (ib_nl_handle_resolve_resp
     * refuses one with -EPERM), one LS_NLA_TYPE_PATH_RECORD of exactly 72 bytes per record. The type
     * carries no RDMA_NLA_F_MANDATORY: the kernel compares nla_type with 1 as is.
     */
    public static byte[] encodeResolveReply(int seq, int portId, List<PathRecordData> records) {
        Writer w =
                new Writer(HDR + records.size() * (NLA_HDRLEN + PathRecordData.SIZE), Ls.TYPE_RESOLVE, 0, seq, portId);
        byte[] wire = new byte[PathRecord.WIRE_SIZE];
        for (PathRecordData d : records) {
            ByteBuffer b = w.attr(Ls.ATTR_PATH_RECORD, PathRecordData.SIZE);
            b.putInt(d.flags()).putInt(0);
            d.record().write(wire, 0);
            b.put(wire);
        }
        return w.finish();
    }

    /** A failed RESOLVE reply: RDMA_NL_LS_F_ERR and nothing else; the kernel then sends the query to the SA. */
    public static byte[] encodeResolveError(int seq, int portId) {
        return new Writer(HDR, Ls.TYPE_RESOLVE, Ls.F_ERR, seq, portId).finish();
    }

    /**
     * SET_TIMEOUT for ib_nl_handle_set_timeout: NLM_F_REQUEST (else -EPERM) and LS_NLA_TYPE_TIMEOUT
     * with nla_type exactly 2: with the mandatory bit, nla_parse_deprecated would drop it as beyond
     * LS_NLA_TYPE_MAX and the kernel would keep its old timeout without a word.
     *
     * @param ack also set NLM_F_ACK, so that the kernel's answer (0, or -EPERM without CAP_NET_ADMIN) comes back
     */
    public static byte[] encodeSetTimeout(int seq, int portId, int timeoutMs, boolean ack) {
        Writer w = new Writer(
                HDR + 8, Ls.TYPE_SET_TIMEOUT, NlMessage.NLM_F_REQUEST | (ack ? NlMessage.NLM_F_ACK : 0), seq, portId);
        w.attr(Ls.ATTR_TIMEOUT, 4).putInt(timeoutMs);
        return w.finish();
    }

    /**
     * An IP_RESOLVE request as addr.c ib_nl_ip_send_msg writes it (for tests): ifindex, then IPV4 or IPV6, mandatory.
     */
    public static byte[] encodeIpResolveRequest(LsMessage.IpResolveRequest r) {
        Writer w = new Writer(64, Ls.TYPE_IP_RESOLVE, NlMessage.NLM_F_REQUEST, r.seq(), r.portId());
        w.b.putInt(r.ifindex());
        byte[] a = r.ip().getAddress();
        w.attr(Ls.NLA_F_MANDATORY | (a.length == 4 ? Ls.ATTR_IPV4 : Ls.ATTR_IPV6), a.length).put(a);
        return w.finish();
    }

    /** A good IP_RESOLVE reply: LS_NLA_TYPE_DGID, exactly type 4 (ib_nl_process_good_ip_rsep compares it as is). */
    public static byte[] encodeIpResolveReply(int seq, int portId, Gid dgid) {
        Writer w = new Writer(HDR + 20, Ls.TYPE_IP_RESOLVE, 0, seq, portId);
        putGid(w.attr(Ls.ATTR_DGID, 16), dgid);
        return w.finish();
    }

    public static byte[] encodeIpResolveError(int seq, int portId) {
        return new Writer(HDR, Ls.TYPE_IP_RESOLVE, Ls.F_ERR, seq, portId).finish();
    }

    /**
     * A failed reply echoing any LS message's type and seq (acm_nl_process_invalid_request answers an
     * undecodable request this way), for requests whose header could still be read.
     */
    public static byte[] encodeError(int type, int seq, int portId) {
        return new Writer(HDR, type, Ls.F_ERR, seq, portId).finish();
    }

    private static void putGid(ByteBuffer b, Gid g) {
        ByteOrder o = b.order();
        b.order(ByteOrder.BIG_ENDIAN).putLong(g.hi()).putLong(g.lo());
        b.order(o);
    }
}
