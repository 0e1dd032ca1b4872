package io.cmdemux.ingress.wire;

/**
 * Builds complete RoCEv2 frames around a CM MAD, the way rxe does (rxe_net.c): IPv4 with DF and a
 * computed header checksum, or IPv6; UDP checksum 0; BTH, DETH, the MAD and the ICRC. This is what the
 * daemon sends as a REJ or REP, and what tests feed to tshark.
 */
public final class RoceFrameBuilder {
    private static final int IPV4_DF = 0x4000;

    private RoceFrameBuilder() {}

    /** A CM MAD to QP1 from QP1: UD SEND_ONLY with this P_Key and PSN, GSI Q_Key. */
    public static byte[] cmFrame(L2Header l2, L3Header l3, int udpSrcPort, int pkey, int psn, Mad mad) {
        return build(l2, l3, udpSrcPort, Bth.cmMad(pkey, psn), Deth.gsi(), mad);
    }

    /**
     * The frame that answers {@code request} with {@code reply} (a REJ or REP): MACs and IPs swapped,
     * the same VLAN, traffic class and P_Key, hop limit 64, and the request's transaction ID, which the
     * kernel's cm_format_rej/cm_format_rep reuse for the answer.
     */
    public static byte[] reply(RoceFrame request, CmMessage reply, int udpSrcPort, int psn) {
        return build(replyL2(request.l2()), replyL3(request.l3()), udpSrcPort, Bth.cmMad(request.bth().pkey(), psn),
                Deth.gsi(), Mad.of(reply, request.mad().header().transactionId()));
    }

    /** {@link #reply(RoceFrame, CmMessage, int, int)} to a frame read in place, without building its records. */
    public static byte[] reply(RoceFrameView request, CmMessage reply, int udpSrcPort, int psn) {
        return build(replyL2(request.l2()), replyL3(request.l3()), udpSrcPort, Bth.cmMad(request.bthPkey(), psn),
                Deth.gsi(), Mad.of(reply, request.transactionId()));
    }

    private static final int TRANSPORT_HEADERS = RoceDecoder.UDP_HEADER + Bth.SIZE + Deth.SIZE;

    /** Room for the headers of any answer: Ethernet with an 802.1Q tag, IPv6, UDP, BTH and DETH. */
    public static final int MAX_REPLY_HEADERS = RoceDecoder.ETH_HEADER + RoceDecoder.VLAN_TAG + RoceDecoder.IPV6_HEADER
            + TRANSPORT_HEADERS;

    /**
     * Writes at {@code out[offset]} the headers of every answer to {@code request}, those of
     * {@link #reply(RoceFrame, CmMessage, int, int)}: they are the same whatever the answer, since every MAD has
     * the same size. With the request's transaction ID they are all an answer needs of the request; at most
     * {@link #MAX_REPLY_HEADERS} bytes.
     *
     * @return how many bytes were written
     */
    public static int writeReplyHeaders(RoceFrame request, int udpSrcPort, int psn, byte[] out, int offset) {
        return writeHeaders(replyL2(request.l2()), replyL3(request.l3()), udpSrcPort,
                Bth.cmMad(request.bth().pkey(), psn), Deth.gsi(), out, offset);
    }

    /** The answer whose headers {@link #writeReplyHeaders} wrote at {@code headers[offset .. offset + length)}. */
    public static byte[] reply(byte[] headers, int offset, int length, CmMessage reply, long transactionId) {
        byte[] f = new byte[length + Mad.SIZE + Icrc.SIZE];
        System.arraycopy(headers, offset, f, 0, length);
        CmCodec.encode(Mad.of(reply, transactionId), f, length);
        // The lengths of (no, plain, tagged) Ethernet with IPv4 or
        // IPv6 differ, so the header length tells where IP starts.
        int l2Length = switch (length - TRANSPORT_HEADERS) {
            case RoceDecoder.IPV4_HEADER, RoceDecoder.IPV6_HEADER -> 0;
            case RoceDecoder.ETH_HEADER + RoceDecoder.IPV4_HEADER, RoceDecoder.ETH_HEADER + RoceDecoder.IPV6_HEADER ->
                RoceDecoder.ETH_HEADER;
            case RoceDecoder.ETH_HEADER + RoceDecoder.VLAN_TAG + RoceDecoder.IPV4_HEADER,
                    RoceDecoder.ETH_HEADER + RoceDecoder.VLAN_TAG + RoceDecoder.IPV6_HEADER ->
                RoceDecoder.ETH_HEADER + RoceDecoder.VLAN_TAG;
            default -> throw new IllegalArgumentException(length + " bytes are not the headers of an answer");
        };
        Icrc.write(f, f.length - Icrc.SIZE,
                Icrc.compute(f, l2Length, length - TRANSPORT_HEADERS - l2Length, f.length - Icrc.SIZE));
        return f;
    }

    private static L2Header replyL2(L2Header in) {
        return in == null ? null : new L2Header(in.src(), in.dst(), in.vlan());
    }

    private static L3Header replyL3(L3Header in) {
        return new L3Header(in.ipVersion(), in.dst(), in.src(), in.trafficClass(), 64, in.flowLabel());
    }

    /** An Ethernet frame, or with {@code l2} null a bare IP packet. */
    public static byte[] build(L2Header l2, L3Header l3, int udpSrcPort, Bth bth, Deth deth, Mad mad) {
        int headers = l2Length(l2) + ipHeaderLength(l3) + TRANSPORT_HEADERS;
        byte[] f = new byte[headers + Mad.SIZE + bth.padCount() + Icrc.SIZE];
        writeHeaders(l2, l3, udpSrcPort, bth, deth, f, 0);
        CmCodec.encode(mad, f, headers);
        int icrcAt = f.length - Icrc.SIZE;
        Icrc.write(f, icrcAt, Icrc.compute(f, l2Length(l2), ipHeaderLength(l3), icrcAt));
        return f;
    }

    private static int l2Length(L2Header l2) {
        return l2 == null ? 0 : RoceDecoder.ETH_HEADER + (l2.vlan() == null ? 0 : RoceDecoder.VLAN_TAG);
    }

    private static int ipHeaderLength(L3Header l3) {
        return l3.ipVersion() == 4 ? RoceDecoder.IPV4_HEADER : RoceDecoder.IPV6_HEADER;
    }

    /** Everything before the MAD, at {@code f[o]}; returns its length. */
    private static int writeHeaders(L2Header l2, L3Header l3, int udpSrcPort, Bth bth, Deth deth, byte[] f, int o) {
        Be.check("udpSrcPort", udpSrcPort, 16);
        int l2Length = l2Length(l2);
        int ipHeader = ipHeaderLength(l3);
        int udpLength = TRANSPORT_HEADERS + Mad.SIZE + bth.padCount() + Icrc.SIZE;
        // The fields left 0 (IPv4 ID and checksum) may hold an earlier answer's bytes in a reused buffer.
        java.util.Arrays.fill(f, o, o + l2Length + ipHeader + TRANSPORT_HEADERS, (byte) 0);
        int ethertype = l3.ipVersion() == 4 ? RoceDecoder.ETHERTYPE_IPV4 : RoceDecoder.ETHERTYPE_IPV6;
        if (l2 != null) {
            System.arraycopy(l2.dst().bytes(), 0, f, o, 6);
            System.arraycopy(l2.src().bytes(), 0, f, o + 6, 6);
            if (l2.vlan() != null) {
                Be.put16(f, o + 12, RoceDecoder.ETHERTYPE_VLAN);
                Be.put16(f, o + 14, l2.vlan().tci());
                Be.put16(f, o + 16, ethertype);
            } else {
                Be.put16(f, o + 12, ethertype);
            }
        }
        int l3At = o + l2Length;
        if (l3.ipVersion() == 4) {
            writeIpv4(f, l3At, l3, ipHeader + udpLength);
        } else {
            writeIpv6(f, l3At, l3, udpLength);
        }
        int udp = l3At + ipHeader;
        Be.put16(f, udp, udpSrcPort);
        Be.put16(f, udp + 2, RoceDecoder.ROCEV2_UDP_PORT);
        Be.put16(f, udp + 4, udpLength);
        // UDP checksum stays 0: RoCEv2 relies on the ICRC, and rxe sends 0 for IPv4 and IPv6 alike.
        bth.encode(f, udp + RoceDecoder.UDP_HEADER);
        deth.encode(f, udp + RoceDecoder.UDP_HEADER + Bth.SIZE);
        return l2Length + ipHeader + TRANSPORT_HEADERS;
    }

    private static void writeIpv4(byte[] f, int o, L3Header l3, int totalLength) {
        Be.put8(f, o, 0x45);
        Be.put8(f, o + 1, l3.trafficClass());
        Be.put16(f, o + 2, totalLength);
        Be.put16(f, o + 6, IPV4_DF);
        Be.put8(f, o + 8, l3.hopLimit());
        Be.put8(f, o + 9, RoceDecoder.IPPROTO_UDP);
        Be.put32(f, o + 12, (int) l3.src().lo());
        Be.put32(f, o + 16, (int) l3.dst().lo());
        Be.put16(f, o + 10, ipv4Checksum(f, o));
    }

    private static void writeIpv6(byte[] f, int o, L3Header l3, int payloadLength) {
        Be.put32(f, o, (6 << 28) | (l3.trafficClass() << 20) | l3.flowLabel());
        Be.put16(f, o + 4, payloadLength);
        Be.put8(f, o + 6, RoceDecoder.IPPROTO_UDP);
        Be.put8(f, o + 7, l3.hopLimit());
        l3.src().write(f, o + 8);
        l3.dst().write(f, o + 24);
    }

    /** RFC 791 header checksum over a 20-byte header whose checksum field is zero. */
    static int ipv4Checksum(byte[] f, int o) {
        int sum = 0;
        for (int i = 0; i < RoceDecoder.IPV4_HEADER; i += 2) {
            sum += Be.u16(f, o + i);
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xffff) + (sum >>> 16);
        }
        return ~sum & 0xffff;
    }
}
