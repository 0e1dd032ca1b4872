package io.cmdemux.ingress.wire;

import io.cmdemux.gid.Gid;
import io.cmdemux.netdev.HwAddr;
import io.cmdemux.netdev.MalformedException;
import java.util.Arrays;

/**
 * Decodes a RoCEv2 frame that carries a CM MAD: Ethernet with an optional 802.1Q tag (or a bare IP
 * packet), IPv4 or IPv6, UDP to 4791, BTH (UD SEND_ONLY to QP1), DETH, the 256-byte MAD, the ICRC.
 * Pure and allocation-light; bad input gives a {@link FrameResult.Failed} with the offset, never an
 * exception. A wrong ICRC does not stop decoding: the frame comes back with {@code icrcValid} false.
 */
public final class RoceDecoder {
    // include/uapi/linux/if_ether.h
    public static final int ETHERTYPE_IPV4 = 0x0800; // ETH_P_IP
    public static final int ETHERTYPE_IPV6 = 0x86DD; // ETH_P_IPV6
    public static final int ETHERTYPE_VLAN = 0x8100; // ETH_P_8021Q
    public static final int ETHERTYPE_QINQ = 0x88A8; // ETH_P_8021AD
    public static final int ETH_HEADER = 14;
    public static final int VLAN_TAG = 4;
    // IANA; ROCE_V2_UDP_DPORT in include/rdma/ib_verbs.h
    public static final int ROCEV2_UDP_PORT = 4791;
    static final int IPPROTO_UDP = 17;
    static final int IPV4_HEADER = 20;
    static final int IPV6_HEADER = 40;
    static final int UDP_HEADER = 8;

    private RoceDecoder() {}

    public static FrameResult decodeEthernet(byte[] frame) {
        return decodeEthernet(frame, 0, frame.length);
    }

    /** Decodes the Ethernet frame at {@code f[offset .. offset+length)}; offsets in a failure count from {@code offset}. */
    public static FrameResult decodeEthernet(byte[] f, int offset, int length) {
        checkBounds(f, offset, length);
        try {
            return new FrameResult.Decoded(ethernet(f, offset, offset + length));
        } catch (MalformedException e) {
            return new FrameResult.Failed(e.offset() - offset, e.reason());
        }
    }

    public static FrameResult decodeIp(byte[] packet) {
        return decodeIp(packet, 0, packet.length);
    }

    /** Decodes a bare IPv4 or IPv6 packet (LINKTYPE_RAW and friends). */
    public static FrameResult decodeIp(byte[] f, int offset, int length) {
        checkBounds(f, offset, length);
        try {
            return new FrameResult.Decoded(ip(f, offset, offset + length, null, 0));
        } catch (MalformedException e) {
            return new FrameResult.Failed(e.offset() - offset, e.reason());
        }
    }

    private static void checkBounds(byte[] f, int offset, int length) {
        if (offset < 0 || length < 0 || offset > f.length - length) {
            throw new IndexOutOfBoundsException("range " + offset + "+" + length + " of a " + f.length + "-byte array");
        }
    }

    private static RoceFrame ethernet(byte[] f, int start, int end) throws MalformedException {
        need(f, start, start, ETH_HEADER, end, "Ethernet header");
        HwAddr dst = HwAddr.of(Arrays.copyOfRange(f, start, start + 6));
        HwAddr src = HwAddr.of(Arrays.copyOfRange(f, start + 6, start + 12));
        int typeAt = start + 12;
        int type = Be.u16(f, typeAt);
        Vlan vlan = null;
        if (type == ETHERTYPE_VLAN || type == ETHERTYPE_QINQ) {
            need(f, start, start + ETH_HEADER, VLAN_TAG, end, "802.1Q tag");
            vlan = Vlan.ofTci(Be.u16(f, start + ETH_HEADER));
            typeAt = start + ETH_HEADER + 2;
            type = Be.u16(f, typeAt);
            if (type == ETHERTYPE_VLAN || type == ETHERTYPE_QINQ) {
                throw new MalformedException(typeAt, "stacked VLAN tags are not supported");
            }
        }
        int expectVersion;
        if (type == ETHERTYPE_IPV4) {
            expectVersion = 4;
        } else if (type == ETHERTYPE_IPV6) {
            expectVersion = 6;
        } else {
            throw new MalformedException(typeAt, String.format("ethertype 0x%04x is not IPv4 or IPv6", type));
        }
        return ip(f, start, end, new L2Header(dst, src, vlan), expectVersion, typeAt + 2);
    }

    private static RoceFrame ip(byte[] f, int start, int end, L2Header l2, int expectVersion) throws MalformedException {
        need(f, start, start, 1, end, "IP header");
        return ip(f, start, end, l2, expectVersion, start);
    }

    private static RoceFrame ip(byte[] f, int start, int end, L2Header l2, int expectVersion, int l3) throws MalformedException {
        need(f, start, l3, 1, end, "IP header");
        int version = Be.u8(f, l3) >>> 4;
        if (expectVersion != 0 && version != expectVersion) {
            throw new MalformedException(l3, "IP version " + version + " under an IPv" + expectVersion + " ethertype");
        }
        int headerLength;
        int ipEnd;
        L3Header l3h;
        if (version == 4) {
            need(f, start, l3, IPV4_HEADER, end, "IPv4 header");
            headerLength = (Be.u8(f, l3) & 0xf) * 4;
            if (headerLength < IPV4_HEADER) {
                throw new MalformedException(l3, "IPv4 header length " + headerLength + " is below 20");
            }
            need(f, start, l3, headerLength, end, "IPv4 header with options");
            int total = Be.u16(f, l3 + 2);
            if (total < headerLength || l3 + total > end) {
                throw new MalformedException(l3 + 2, "IPv4 total length " + total + " does not fit the " + (end - l3) + " bytes captured");
            }
            if ((Be.u16(f, l3 + 6) & 0x3fff) != 0) {
                throw new MalformedException(l3 + 6, "fragmented IPv4 packet");
            }
            if (Be.u8(f, l3 + 9) != IPPROTO_UDP) {
                throw new MalformedException(l3 + 9, "IP protocol " + Be.u8(f, l3 + 9) + " is not UDP");
            }
            ipEnd = l3 + total;
            l3h = new L3Header(4, Gid.ipv4Mapped(Be.u32(f, l3 + 12)), Gid.ipv4Mapped(Be.u32(f, l3 + 16)),
                    Be.u8(f, l3 + 1), Be.u8(f, l3 + 8), 0);
        } else if (version == 6) {
            need(f, start, l3, IPV6_HEADER, end, "IPv6 header");
            headerLength = IPV6_HEADER;
            int payload = Be.u16(f, l3 + 4);
            if (l3 + IPV6_HEADER + payload > end) {
                throw new MalformedException(l3 + 4, "IPv6 payload length " + payload + " does not fit the " + (end - l3 - IPV6_HEADER) + " bytes captured");
            }
            if (Be.u8(f, l3 + 6) != IPPROTO_UDP) {
                throw new MalformedException(l3 + 6, "IPv6 next header " + Be.u8(f, l3 + 6) + " is not UDP (extension headers are not supported)");
            }
            ipEnd = l3 + IPV6_HEADER + payload;
            int word0 = Be.u32(f, l3);
            l3h = new L3Header(6, Gid.read(f, l3 + 8), Gid.read(f, l3 + 24), (word0 >>> 20) & 0xff, Be.u8(f, l3 + 7), word0 & 0xfffff);
        } else {
            throw new MalformedException(l3, "IP version " + version + " is neither 4 nor 6");
        }
        int udp = l3 + headerLength;
        need(f, start, udp, UDP_HEADER, ipEnd, "UDP header");
        int dport = Be.u16(f, udp + 2);
        if (dport != ROCEV2_UDP_PORT) {
            throw new MalformedException(udp + 2, "UDP port " + dport + " is not RoCEv2 (4791)");
        }
        int udpLength = Be.u16(f, udp + 4);
        if (udpLength != ipEnd - udp) {
            throw new MalformedException(udp + 4, "UDP length " + udpLength + " does not match the " + (ipEnd - udp) + " bytes after the IP header");
        }
        int bthAt = udp + UDP_HEADER;
        need(f, start, bthAt, Bth.SIZE, ipEnd, "BTH");
        Bth bth = Bth.decode(f, bthAt);
        if (bth.opcode() != Bth.OPCODE_UD_SEND_ONLY) {
            throw new MalformedException(bthAt, String.format("BTH opcode 0x%02x is not UD SEND_ONLY (0x64), so no MAD", bth.opcode()));
        }
        if (bth.destQp() != Bth.GSI_QP) {
            throw new MalformedException(bthAt + 5, "BTH destination QP " + bth.destQp() + " is not QP1, so no CM MAD");
        }
        int dethAt = bthAt + Bth.SIZE;
        need(f, start, dethAt, Deth.SIZE + Icrc.SIZE, ipEnd, "DETH and ICRC");
        Deth deth = Deth.decode(f, dethAt);
        int madAt = dethAt + Deth.SIZE;
        int icrcAt = ipEnd - Icrc.SIZE;
        int madLength = icrcAt - madAt - bth.padCount();
        if (madLength != Mad.SIZE) {
            throw new MalformedException(madAt, "MAD is " + Math.max(madLength, 0) + " bytes, a MAD has " + Mad.SIZE);
        }
        int stored = Icrc.read(f, icrcAt);
        int computed = Icrc.compute(f, l3, headerLength, icrcAt);
        Mad mad = CmCodec.decode(f, madAt, madLength);
        return new RoceFrame(l2, l3h, Be.u16(f, udp), bth, deth, mad, stored, stored == computed);
    }

    private static void need(byte[] f, int start, int at, int n, int end, String what) throws MalformedException {
        if (at + n > end) {
            throw new MalformedException(Math.min(at, end), what + " needs " + n + " bytes, " + Math.max(end - at, 0) + " remain");
        }
    }
}
