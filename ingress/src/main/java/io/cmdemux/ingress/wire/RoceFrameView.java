package io.cmdemux.ingress.wire;

import io.cmdemux.gid.Gid;
import io.cmdemux.netdev.HwAddr;
import io.cmdemux.netdev.MalformedException;
import java.util.Arrays;

/**
 * A RoCEv2 frame carrying a CM MAD, checked and read in place: every header the decoder checks has
 * been checked and the ICRC compared, but nothing is copied out until asked for. The receive path
 * needs a handful of a request's fields to route it; {@link #toFrame()} builds the whole record tree
 * for whoever shows, stores or answers the frame.
 *
 * <p>A view can be pointed at one frame after another, so that a receive loop allocates nothing per
 * frame: it belongs to one thread, and the frame's bytes must not change while it is in use.
 * {@link #ethernet} and {@link #ip} give a fresh one.
 */
public final class RoceFrameView {
    private static final int NONE = -1;

    private byte[] f;
    private int l2; // NONE for a bare IP packet
    private int vlanTci; // NONE when untagged
    private int l3;
    private int udp;
    private int bth;
    private int mad;
    private int icrcAt; // NONE when the frame ends where its ICRC would start
    private boolean icrcValid;
    private CmAttribute attribute;

    /**
     * A view of nothing yet; {@link #wrapEthernet} or {@link #wrapIp} point it at a frame. Reading it before that
     * fails.
     */
    public RoceFrameView() {}

    private RoceFrameView set(
            byte[] f,
            int l2,
            int vlanTci,
            int l3,
            int udp,
            int mad,
            int icrcAt,
            boolean icrcValid,
            CmAttribute attribute) {
        this.f = f;
        this.l2 = l2;
        this.vlanTci = vlanTci;
        this.l3 = l3;
        this.udp = udp;
        this.bth = udp + RoceDecoder.UDP_HEADER;
        this.mad = mad;
        this.icrcAt = icrcAt;
        this.icrcValid = icrcValid;
        this.attribute = attribute;
        return this;
    }

    /**
     * The Ethernet frame at {@code f[start .. end)}. A wrong or missing ICRC does not fail: the view
     * says so ({@link #icrcValid}, {@link #icrcMissing}), and whoever receives the frame drops it.
     *
     * @throws MalformedException with an index into {@code f}, if it is not a RoCEv2 CM frame
     */
    public static RoceFrameView ethernet(byte[] f, int start, int end) throws MalformedException {
        return new RoceFrameView().wrapEthernet(f, start, end);
    }

    /**
     * Points this view at the Ethernet frame at {@code f[start .. end)}; one view per receiving thread
     * spares an allocation per frame. After a failure the view is unchanged.
     */
    public RoceFrameView wrapEthernet(byte[] f, int start, int end) throws MalformedException {
        checkRange(start, end, f.length);
        int length = end - start;
        return length == V4_FRAME && plainV4(f, start) || length == V6_FRAME && plainV6(f, start)
                ? this
                : wrapEthernetChecked(f, start, end);
    }

    /** Objects.checkFromToIndex in one branch instead of three, for the size of the compiled fast path. */
    private static void checkRange(int start, int end, int length) {
        if ((start | end - start | length - end) < 0) {
            throw new IndexOutOfBoundsException(
                    "range [" + start + ", " + end + ") out of bounds for length " + length);
        }
    }

    // The common frames, checked a word at a time: untagged Ethernet, IPv4 without options or fragments,
    // UDP to 4791 with the right length, BTH UD SEND_ONLY to QP1 without pad, a CM MAD header with a
    // known attribute. Whatever differs takes the field-by-field checks, which find the exact fault.
    private static final int V4_FRAME = RoceDecoder.ETH_HEADER
            + RoceDecoder.IPV4_HEADER
            + RoceDecoder.UDP_HEADER
            + Bth.SIZE
            + Deth.SIZE
            + Mad.SIZE
            + Icrc.SIZE;
    private static final int V4_L3 = RoceDecoder.ETH_HEADER;
    private static final int V4_UDP = V4_L3 + RoceDecoder.IPV4_HEADER;
    private static final int V4_MAD = V4_UDP + RoceDecoder.UDP_HEADER + Bth.SIZE + Deth.SIZE;
    private static final int MAD_ATTRIBUTE_ID = 16;
    private static final int MAD_TRANSACTION_ID = 8;
    // bytes 12-19: ethertype, version and IHL, (TOS), total length, (ID)
    private static final long V4_AT_12_MASK = 0xFFFF_FF00_FFFF_0000L;
    private static final long V4_AT_12 =
            (long) RoceDecoder.ETHERTYPE_IPV4 << 48 | 0x45L << 40 | (long) (V4_FRAME - V4_L3) << 16;
    // bytes 20-27: flags and fragment offset (but not DF), (TTL), protocol, (checksum, source)
    private static final long V4_AT_20_MASK = 0x3FFF_00FF_0000_0000L;
    private static final long V4_AT_20 = (long) RoceDecoder.IPPROTO_UDP << 32;
    // bytes 36-43: destination port, UDP length, (checksum), BTH opcode, pad count
    private static final long V4_AT_36_MASK = 0xFFFF_FFFF_0000_FF30L;
    private static final long V4_AT_36 = (long) RoceDecoder.ROCEV2_UDP_PORT << 48 | (long) (V4_FRAME - V4_UDP) << 32
            | Bth.OPCODE_UD_SEND_ONLY << 8;
    // bytes 44-51: (P_Key, FECN/BECN), destination QP, (AckReq, PSN)
    private static final long V4_AT_44_MASK = 0x0000_00FF_FFFF_0000L;
    private static final long V4_AT_44 = (long) Bth.GSI_QP << 16;
    // bytes 62-63: MAD base version, management class
    private static final int MAD_CLASS = MadHeader.BASE_VERSION << 8 | MadHeader.MGMT_CLASS_CM;

    /**
     * Points this view at {@code f[s .. s + V4_FRAME)} if it is the common frame. The words read for the
     * checks also hold the seven bytes the ICRC masks, which go to the ICRC from there.
     */
    boolean plainV4(byte[] f, int s) {
        long w12 = Be.u64(f, s + 12);
        long w20 = Be.u64(f, s + 20);
        long w36 = Be.u64(f, s + 36);
        long w44 = Be.u64(f, s + 44);
        int attribute = madAttribute(f, s + V4_MAD);
        // Differences ORed together for one branch, not seven: each branch would be another uncommon trap in
        // the compiled code, and past 2,500 bytes of it the JIT stops inlining this into its callers.
        long differs = (w12 & V4_AT_12_MASK ^ V4_AT_12)
                | (w20 & V4_AT_20_MASK ^ V4_AT_20)
                | (w36 & V4_AT_36_MASK ^ V4_AT_36)
                | (w44 & V4_AT_44_MASK ^ V4_AT_44)
                | attribute >>> 31;
        // TOS (byte 15), TTL (22), header checksum (24-25), UDP checksum (40-41), BTH byte 4 (46)
        return differs == 0
                && setPlain(f, s, V4_UDP, V4_MAD, V4_FRAME, attribute,
                        Icrc.v4(
                                f,
                                s + V4_L3,
                                (int) (w12 >>> 32),
                                (int) (w20 >>> 40),
                                (int) (w20 >>> 16),
                                (int) (w36 >>> 16),
                                (int) (w44 >>> 40)));
    }

    /**
     * The CM attribute ID of the MAD at {@code f[mad]}, or a negative number when it is not a CM MAD of a known
     * attribute.
     */
    private static int madAttribute(byte[] f, int mad) {
        int attribute = u16(f, mad + MAD_ATTRIBUTE_ID);
        int wrong = (u16(f, mad) ^ MAD_CLASS)
                | (attribute - CmAttribute.REQ.id() | CmAttribute.SIDR_REP.id() - attribute) >>> 31;
        return attribute | -wrong;
    }

    private boolean setPlain(byte[] f, int s, int udp, int mad, int frame, int attribute, int icrc) {
        int icrcAt = s + frame - Icrc.SIZE;
        // The stored ICRC (little-endian) as the low half of the frame's last 8 bytes, for the reason u16 gives.
        int stored = Integer.reverseBytes((int) Be.u64(f, icrcAt - Icrc.SIZE));
        set(f, s, NONE, s + RoceDecoder.ETH_HEADER, s + udp, s + mad, icrcAt, stored == icrc,
                CmAttribute.byId(attribute));
        return true;
    }

    // The same for IPv6 without extension headers.
    private static final int V6_FRAME = RoceDecoder.ETH_HEADER
            + RoceDecoder.IPV6_HEADER
            + RoceDecoder.UDP_HEADER
            + Bth.SIZE
            + Deth.SIZE
            + Mad.SIZE
            + Icrc.SIZE;
    private static final int V6_L3 = RoceDecoder.ETH_HEADER;
    private static final int V6_UDP = V6_L3 + RoceDecoder.IPV6_HEADER;
    private static final int V6_BTH = V6_UDP + RoceDecoder.UDP_HEADER;
    private static final int V6_MAD = V6_BTH + Bth.SIZE + Deth.SIZE;
    // bytes 12-19: ethertype, version, (traffic class, flow label), payload length
    private static final long V6_AT_12_MASK = 0xFFFF_F000_0000_FFFFL;
    private static final long V6_AT_12 = (long) RoceDecoder.ETHERTYPE_IPV6 << 48 | 0x6L << 44 | V6_FRAME - V6_UDP;
    // bytes 20-27: next header, (hop limit, source)
    private static final long V6_AT_20_MASK = 0xFF00_0000_0000_0000L;
    private static final long V6_AT_20 = (long) RoceDecoder.IPPROTO_UDP << 56;
    // bytes 54-61: (source port), destination port, UDP length, (checksum)
    private static final long V6_AT_54_MASK = 0x0000_FFFF_FFFF_0000L;
    private static final long V6_AT_54 = (long) RoceDecoder.ROCEV2_UDP_PORT << 32 | (long) (V6_FRAME - V6_UDP) << 16;
    // bytes 62-69: BTH opcode, pad count, (P_Key, FECN/BECN), destination QP
    private static final long V6_AT_62_MASK = 0xFF30_0000_00FF_FFFFL;
    private static final long V6_AT_62 = (long) Bth.OPCODE_UD_SEND_ONLY << 56 | Bth.GSI_QP;

    boolean plainV6(byte[] f, int s) {
        long w12 = Be.u64(f, s + 12);
        long w20 = Be.u64(f, s + 20);
        long w54 = Be.u64(f, s + 54);
        long w62 = Be.u64(f, s + 62);
        int attribute = madAttribute(f, s + V6_MAD);
        long differs = (w12 & V6_AT_12_MASK ^ V6_AT_12)
                | (w20 & V6_AT_20_MASK ^ V6_AT_20)
                | (w54 & V6_AT_54_MASK ^ V6_AT_54)
                | (w62 & V6_AT_62_MASK ^ V6_AT_62)
                | attribute >>> 31;
        // version, traffic class and flow label (bytes 14-17), hop limit (21), UDP checksum (60-61), BTH byte 4 (66)
        return differs == 0 && setPlain(f, s, V6_UDP, V6_MAD, V6_FRAME, attribute,
                Icrc.v6(f, s + V6_L3, (int) (w12 >>> 16), (int) (w20 >>> 48), (int) w54, (int) (w62 >>> 24)));
    }

    /** {@link #wrapEthernet} without the word-at-a-time shortcut: every check, one field at a time. */
    RoceFrameView wrapEthernetChecked(byte[] f, int start, int end) throws MalformedException {
        need(start, RoceDecoder.ETH_HEADER, end, "Ethernet header");
        int typeAt = start + 12;
        int type = Be.u16(f, typeAt);
        int tci = NONE;
        if (type == RoceDecoder.ETHERTYPE_VLAN || type == RoceDecoder.ETHERTYPE_QINQ) {
            need(start + RoceDecoder.ETH_HEADER, RoceDecoder.VLAN_TAG, end, "802.1Q tag");
            tci = Be.u16(f, start + RoceDecoder.ETH_HEADER);
            typeAt = start + RoceDecoder.ETH_HEADER + 2;
            type = Be.u16(f, typeAt);
            if (type == RoceDecoder.ETHERTYPE_VLAN || type == RoceDecoder.ETHERTYPE_QINQ) {
                throw new MalformedException(typeAt, "stacked VLAN tags are not supported");
            }
        }
        int expectVersion;
        if (type == RoceDecoder.ETHERTYPE_IPV4) {
            expectVersion = 4;
        } else if (type == RoceDecoder.ETHERTYPE_IPV6) {
            expectVersion = 6;
        } else {
            throw new MalformedException(typeAt, String.format("ethertype 0x%04x is not IPv4 or IPv6", type));
        }
        return ip(f, start, tci, typeAt + 2, end, expectVersion);
    }

    /** The bare IPv4 or IPv6 packet at {@code f[start .. end)} (LINKTYPE_RAW and friends). */
    public static RoceFrameView ip(byte[] f, int start, int end) throws MalformedException {
        return new RoceFrameView().wrapIp(f, start, end);
    }

    /** Points this view at the bare IP packet at {@code f[start .. end)}. */
    public RoceFrameView wrapIp(byte[] f, int start, int end) throws MalformedException {
        checkRange(start, end, f.length);
        return ip(f, NONE, NONE, start, end, 0);
    }

    // The checks come in small methods: as one 700-byte method they were too big for the JIT to inline.
    private RoceFrameView ip(byte[] f, int l2, int tci, int l3, int end, int expectVersion) throws MalformedException {
        need(l3, 1, end, "IP header");
        int version = Be.u8(f, l3) >>> 4;
        if (expectVersion != 0 && version != expectVersion) {
            throw new MalformedException(l3, "IP version " + version + " under an IPv" + expectVersion + " ethertype");
        }
        int headerLength = version == 4 ? ipv4(f, l3, end) : ipv6(f, l3, end, version);
        int ipEnd = version == 4 ? l3 + Be.u16(f, l3 + 2) : l3 + RoceDecoder.IPV6_HEADER + Be.u16(f, l3 + 4);
        int udp = l3 + headerLength;
        int madAt = transport(f, udp, ipEnd);
        int icrcAt = madAt + Mad.SIZE + padCount(f, udp);
        boolean icrcValid = false;
        if (icrcAt == ipEnd) {
            requireNoIcrc(f, l3, headerLength, madAt, ipEnd);
            icrcAt = NONE;
        } else {
            icrcValid = Icrc.read(f, icrcAt) == Icrc.compute(f, l3, headerLength, icrcAt);
        }
        CmAttribute attribute = CmCodec.check(f, madAt, Mad.SIZE);
        return set(f, l2, tci, l3, udp, madAt, icrcAt, icrcValid, attribute);
    }

    /**
     * A whole MAD and nothing after it is a frame whose ICRC is missing, as tshark reads it, unless its
     * last 4 bytes are a valid ICRC over the rest: then the MAD is 4 bytes short.
     */
    private static void requireNoIcrc(byte[] f, int l3, int headerLength, int madAt, int ipEnd)
            throws MalformedException {
        int shortIcrcAt = ipEnd - Icrc.SIZE;
        if (Icrc.read(f, shortIcrcAt) == Icrc.compute(f, l3, headerLength, shortIcrcAt)) {
            throw new MalformedException(madAt, "MAD is " + (Mad.SIZE - Icrc.SIZE) + " bytes, a MAD has " + Mad.SIZE);
        }
    }

    /** Checks an IPv4 header; its length. */
    private static int ipv4(byte[] f, int l3, int end) throws MalformedException {
        need(l3, RoceDecoder.IPV4_HEADER, end, "IPv4 header");
        int headerLength = (Be.u8(f, l3) & 0xf) * 4;
        if (headerLength < RoceDecoder.IPV4_HEADER) {
            throw new MalformedException(l3, "IPv4 header length " + headerLength + " is below 20");
        }
        need(l3, headerLength, end, "IPv4 header with options");
        int total = Be.u16(f, l3 + 2);
        if (total < headerLength || l3 + total > end) {
            throw new MalformedException(
                    l3 + 2, "IPv4 total length " + total + " does not fit the " + (end - l3) + " bytes captured");
        }
        if ((Be.u16(f, l3 + 6) & 0x3fff) != 0) {
            throw new MalformedException(l3 + 6, "fragmented IPv4 packet");
        }
        if (Be.u8(f, l3 + 9) != RoceDecoder.IPPROTO_UDP) {
            throw new MalformedException(l3 + 9, "IP protocol " + Be.u8(f, l3 + 9) + " is not UDP");
        }
        return headerLength;
    }

    /** Checks an IPv6 header, or fails for any other IP version; its length. */
    private static int ipv6(byte[] f, int l3, int end, int version) throws MalformedException {
        if (version != 6) {
            throw new MalformedException(l3, "IP version " + version + " is neither 4 nor 6");
        }
        need(l3, RoceDecoder.IPV6_HEADER, end, "IPv6 header");
        int payload = Be.u16(f, l3 + 4);
        if (l3 + RoceDecoder.IPV6_HEADER + payload > end) {
            throw new MalformedException(l3 + 4, "IPv6 payload length " + payload + " does not fit the "
                    + (end - l3 - RoceDecoder.IPV6_HEADER) + " bytes captured");
        }
        if (Be.u8(f, l3 + 6) != RoceDecoder.IPPROTO_UDP) {
            throw new MalformedException(l3 + 6,
                    "IPv6 next header " + Be.u8(f, l3 + 6) + " is not UDP (extension headers are not supported)");
        }
        return RoceDecoder.IPV6_HEADER;
    }

    /**
     * Checks UDP, BTH and DETH up to the MAD, and that the MAD has its 256 bytes (an ICRC may follow); where the MAD
     * starts.
     */
    private static int transport(byte[] f, int udp, int ipEnd) throws MalformedException {
        need(udp, RoceDecoder.UDP_HEADER, ipEnd, "UDP header");
        int dport = Be.u16(f, udp + 2);
        if (dport != RoceDecoder.ROCEV2_UDP_PORT) {
            throw new MalformedException(udp + 2, "UDP port " + dport + " is not RoCEv2 (4791)");
        }
        int udpLength = Be.u16(f, udp + 4);
        if (udpLength != ipEnd - udp) {
            throw new MalformedException(udp + 4,
                    "UDP length " + udpLength + " does not match the " + (ipEnd - udp) + " bytes after the IP header");
        }
        int bthAt = udp + RoceDecoder.UDP_HEADER;
        need(bthAt, Bth.SIZE, ipEnd, "BTH");
        int opcode = Be.u8(f, bthAt);
        if (opcode != Bth.OPCODE_UD_SEND_ONLY) {
            throw new MalformedException(
                    bthAt, String.format("BTH opcode 0x%02x is not UD SEND_ONLY (0x64), so no MAD", opcode));
        }
        int destQp = Be.u24(f, bthAt + 5);
        if (destQp != Bth.GSI_QP) {
            throw new MalformedException(bthAt + 5, "BTH destination QP " + destQp + " is not QP1, so no CM MAD");
        }
        int dethAt = bthAt + Bth.SIZE;
        need(dethAt, Deth.SIZE + Icrc.SIZE, ipEnd, "DETH and ICRC");
        int madAt = dethAt + Deth.SIZE;
        int madLength = ipEnd - Icrc.SIZE - madAt - padCount(f, udp);
        if (madLength != Mad.SIZE && madLength != Mad.SIZE - Icrc.SIZE) {
            throw new MalformedException(madAt, "MAD is " + Math.max(madLength, 0) + " bytes, a MAD has " + Mad.SIZE);
        }
        return madAt;
    }

    private static int padCount(byte[] f, int udp) {
        return (Be.u8(f, udp + RoceDecoder.UDP_HEADER + 1) >>> 4) & 0x3;
    }

    /*
     * The fields the receive path reads, each as the 8 bytes that start at it. C2 merges the bounds
     * checks of reads of one width at constant distances from one start into one or two, but keeps
     * those of reads of 1, 2, 4 and 8 bytes apart; for a frame that did not start at index 0 of its
     * array (a start unknown to the JIT) they took the decode from 24 to 33 ns. Only for fields with 8
     * bytes of frame from their start.
     */
    private static int u8(byte[] f, int i) {
        return (int) (Be.u64(f, i) >>> 56);
    }

    private static int u16(byte[] f, int i) {
        return (int) (Be.u64(f, i) >>> 48);
    }

    private static int u32(byte[] f, int i) {
        return (int) (Be.u64(f, i) >>> 32);
    }

    private static void need(int at, int n, int end, String what) throws MalformedException {
        if (at + n > end) {
            throw new MalformedException(
                    Math.min(at, end), what + " needs " + n + " bytes, " + Math.max(end - at, 0) + " remain");
        }
    }

    /** Whether the ICRC is there and right; a frame without is never valid (rxe_icrc_check fails). */
    public boolean icrcValid() {
        return icrcValid;
    }

    /** Whether the frame ends where its ICRC would start. */
    public boolean icrcMissing() {
        return icrcAt == NONE;
    }

    public CmAttribute attribute() {
        return attribute;
    }

    public int ipVersion() {
        return Be.u8(f, l3) >>> 4;
    }

    /** The IP source as a GID (IPv4 in ::ffff:a.b.c.d form). */
    public Gid ipSrc() {
        return ipVersion() == 4 ? Gid.ipv4Mapped(Be.u32(f, l3 + 12)) : Gid.read(f, l3 + 8);
    }

    public Gid ipDst() {
        return ipVersion() == 4 ? Gid.ipv4Mapped(Be.u32(f, l3 + 16)) : Gid.read(f, l3 + 24);
    }

    /** The BTH's P_Key, the one the port checks against its table. */
    public int bthPkey() {
        return u16(f, bth + 2);
    }

    /** The 802.1Q VLAN ID, or -1 when untagged or without a link layer. */
    public int vlanId() {
        return vlanTci == NONE ? NONE : vlanTci & 0xfff;
    }

    /** The Ethernet destination, or null without a link layer. */
    public HwAddr l2Dst() {
        return l2 == NONE ? null : HwAddr.of(Arrays.copyOfRange(f, l2, l2 + 6));
    }

    /** The MAD's transaction ID, which cm.c's answers (MRA, REP, REJ) repeat. */
    public long transactionId() {
        return Be.u64(f, mad + MAD_TRANSACTION_ID);
    }

    /** The sender's comm ID, which opens the CM data of every message but the SIDR ones. */
    public int localCommId() {
        requireConnected();
        return u32(f, mad + MadHeader.SIZE);
    }

    /** The receiver's comm ID, the second word of the CM data of every message but a REQ and the SIDR ones. */
    public int remoteCommId() {
        requireConnected();
        if (attribute == CmAttribute.REQ) {
            throw new IllegalStateException("a REQ names no remote comm ID");
        }
        return u32(f, mad + MadHeader.SIZE + 4);
    }

    private void requireConnected() {
        if (attribute == CmAttribute.SIDR_REQ || attribute == CmAttribute.SIDR_REP) {
            throw new IllegalStateException(attribute + " has no comm IDs");
        }
    }

    /** A REQ's local comm ID or a SIDR REQ's request ID: both open the CM data. */
    public int requestId() {
        requireRequest();
        return u32(f, mad + MadHeader.SIZE);
    }

    /** The service ID of a REQ or SIDR REQ; both keep it at byte 8 of the CM data. */
    public long serviceId() {
        requireRequest();
        return Be.u64(f, mad + MadHeader.SIZE + ReqLayout.SERVICE_ID);
    }

    /** A REQ's local CA GUID: with its local comm ID, what tells a retransmission from a new request. */
    public long localCaGuid() {
        if (requireRequest() != CmAttribute.REQ) {
            throw new IllegalStateException("a SIDR REQ names no CA GUID");
        }
        return Be.u64(f, mad + MadHeader.SIZE + ReqLayout.LOCAL_CA_GUID);
    }

    /** The P_Key a REQ or SIDR REQ asks for. */
    public int requestPkey() {
        int d = mad + MadHeader.SIZE;
        return requireRequest() == CmAttribute.REQ
                ? u16(f, d + ReqLayout.PARTITION_KEY)
                : u16(f, d + ShortLayouts.SIDR_REQ_PKEY);
    }

    /** A REQ's primary path remote GID: the GID of ours that the active side connects to. */
    public Gid primaryRemoteGid() {
        requireReq();
        return Gid.read(f, mad + MadHeader.SIZE + ReqLayout.PRIMARY_PATH + ReqLayout.P_REMOTE_GID);
    }

    public Gid primaryLocalGid() {
        requireReq();
        return Gid.read(f, mad + MadHeader.SIZE + ReqLayout.PRIMARY_PATH + ReqLayout.P_LOCAL_GID);
    }

    /*
     * The rdma_cm header (CmaHeader) in the first 36 bytes of a request's private data (both areas, of
     * 92 and 136 bytes, hold it), read one field at a time whatever the service ID says; addressing() is
     * the reading that decides. A CmaHeader record per request would be 64 bytes that the JIT does not
     * scalar-replace.
     */
    private int privateData() {
        return mad
                + MadHeader.SIZE
                + (requireRequest() == CmAttribute.REQ ? ReqLayout.PRIVATE_DATA : ShortLayouts.SIDR_REQ_PRIVATE_DATA);
    }

    public int cmaVersion() {
        return u8(f, privateData() + CmaHeader.OFF_VERSION);
    }

    public int cmaIpVersion() {
        return u8(f, privateData() + CmaHeader.OFF_IP_VERSION) >>> 4;
    }

    public int cmaSrcPort() {
        return u16(f, privateData() + CmaHeader.OFF_PORT);
    }

    public Gid cmaSrcAddr() {
        return Gid.read(f, privateData() + CmaHeader.OFF_SRC);
    }

    public Gid cmaDstAddr() {
        return Gid.read(f, privateData() + CmaHeader.OFF_DST);
    }

    /** How the request addresses its listener, read from the private data in place. */
    public CmAddressing addressing() {
        return CmAddressing.of(serviceId(), f, privateData(),
                attribute == CmAttribute.REQ ? CmReq.PRIVATE_DATA_SIZE : CmSidrReq.PRIVATE_DATA_SIZE);
    }

    private CmAttribute requireRequest() {
        if (attribute != CmAttribute.REQ && attribute != CmAttribute.SIDR_REQ) {
            throw new IllegalStateException(attribute + " is not a request");
        }
        return attribute;
    }

    private void requireReq() {
        if (attribute != CmAttribute.REQ) {
            throw new IllegalStateException(attribute + " is not a REQ");
        }
    }

    /** The link layer as records, or null without one. */
    public L2Header l2() {
        return l2 == NONE
                ? null
                : new L2Header(HwAddr.of(Arrays.copyOfRange(f, l2, l2 + 6)),
                        HwAddr.of(Arrays.copyOfRange(f, l2 + 6, l2 + 12)),
                        vlanTci == NONE ? null : Vlan.ofTci(vlanTci));
    }

    /** The IP header as a record. */
    public L3Header l3() {
        if (ipVersion() == 4) {
            return new L3Header(4, ipSrc(), ipDst(), Be.u8(f, l3 + 1), Be.u8(f, l3 + 8), 0);
        }
        int word0 = Be.u32(f, l3);
        return new L3Header(6, ipSrc(), ipDst(), (word0 >>> 20) & 0xff, Be.u8(f, l3 + 7), word0 & 0xfffff);
    }

    /** Every field, as records. */
    public RoceFrame toFrame() {
        RoceFrame.IcrcCheck check = icrcValid
                ? RoceFrame.IcrcCheck.VALID
                : icrcAt == NONE ? RoceFrame.IcrcCheck.MISSING : RoceFrame.IcrcCheck.WRONG;
        return new RoceFrame(l2(), l3(), Be.u16(f, udp), Bth.decode(f, bth), Deth.decode(f, bth + Bth.SIZE),
                CmCodec.decodeChecked(f, mad, attribute), icrcAt == NONE ? 0 : Icrc.read(f, icrcAt), check);
    }

    /** The MAD's 256 bytes, copied. */
    Octets madBytes() {
        return Octets.copyOf(f, mad, Mad.SIZE);
    }
}
