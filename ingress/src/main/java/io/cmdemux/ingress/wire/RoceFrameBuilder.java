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
        return reply(request.l2(), request.l3(), request.bth().pkey(), request.mad().header().transactionId(), reply, udpSrcPort, psn);
    }

    /**
     * {@link #reply(RoceFrame, CmMessage, int, int)} to a request read in place: a request kept as its
     * bytes is answered (REP, DREQ, REJ) without building its records again, the REQ's alone a kilobyte.
     */
    public static byte[] reply(RoceFrameView request, CmMessage reply, int udpSrcPort, int psn) {
        return reply(request.l2(), request.l3(), request.bthPkey(), request.transactionId(), reply, udpSrcPort, psn);
    }

    private static byte[] reply(L2Header requestL2, L3Header in, int pkey, long transactionId, CmMessage reply, int udpSrcPort, int psn) {
        L2Header l2 = requestL2 == null ? null : new L2Header(requestL2.src(), requestL2.dst(), requestL2.vlan());
        L3Header l3 = new L3Header(in.ipVersion(), in.dst(), in.src(), in.trafficClass(), 64, in.flowLabel());
        return cmFrame(l2, l3, udpSrcPort, pkey, psn, Mad.of(reply, transactionId));
    }

    /** An Ethernet frame, or with {@code l2} null a bare IP packet. */
    public static byte[] build(L2Header l2, L3Header l3, int udpSrcPort, Bth bth, Deth deth, Mad mad) {
        Be.check("udpSrcPort", udpSrcPort, 16);
        int l2Length = l2 == null ? 0 : RoceDecoder.ETH_HEADER + (l2.vlan() == null ? 0 : RoceDecoder.VLAN_TAG);
        int ipHeader = l3.ipVersion() == 4 ? RoceDecoder.IPV4_HEADER : RoceDecoder.IPV6_HEADER;
        int udpLength = RoceDecoder.UDP_HEADER + Bth.SIZE + Deth.SIZE + Mad.SIZE + bth.padCount() + Icrc.SIZE;
        byte[] f = new byte[l2Length + ipHeader + udpLength];
        int ethertype = l3.ipVersion() == 4 ? RoceDecoder.ETHERTYPE_IPV4 : RoceDecoder.ETHERTYPE_IPV6;
        if (l2 != null) {
            System.arraycopy(l2.dst().bytes(), 0, f, 0, 6);
            System.arraycopy(l2.src().bytes(), 0, f, 6, 6);
            if (l2.vlan() != null) {
                Be.put16(f, 12, RoceDecoder.ETHERTYPE_VLAN);
                Be.put16(f, 14, l2.vlan().tci());
                Be.put16(f, 16, ethertype);
            } else {
                Be.put16(f, 12, ethertype);
            }
        }
        int l3At = l2Length;
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
        int dethAt = udp + RoceDecoder.UDP_HEADER + Bth.SIZE;
        deth.encode(f, dethAt);
        CmCodec.encode(mad, f, dethAt + Deth.SIZE);
        int icrcAt = f.length - Icrc.SIZE;
        Icrc.write(f, icrcAt, Icrc.compute(f, l3At, ipHeader, icrcAt));
        return f;
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
