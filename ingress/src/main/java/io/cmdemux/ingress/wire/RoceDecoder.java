package io.cmdemux.ingress.wire;

import io.cmdemux.netdev.MalformedException;

/**
 * Decodes a RoCEv2 frame that carries a CM MAD: Ethernet with an optional 802.1Q tag (or a bare IP
 * packet), IPv4 or IPv6, UDP to 4791, BTH (UD SEND_ONLY to QP1), DETH, the 256-byte MAD, the ICRC.
 * Bad input gives a {@link FrameResult.Failed} with the offset, never an exception. A wrong ICRC does
 * not stop decoding, nor does a missing one (the frame ends where the ICRC would start; tshark shows
 * such a frame's MAD too): the frame comes back with its {@code icrcCheck}, and a receiver drops it. The
 * checks are {@link RoceFrameView}'s; this builds the records.
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

    /**
     * Decodes the Ethernet frame at {@code f[offset .. offset+length)}; offsets in a failure count from
     * {@code offset}. A range outside the array throws IndexOutOfBoundsException (the view checks it).
     */
    public static FrameResult decodeEthernet(byte[] f, int offset, int length) {
        try {
            return decoded(RoceFrameView.ethernet(f, offset, offset + length));
        } catch (MalformedException e) {
            return new FrameResult.Failed(e.offset() - offset, e.reason());
        }
    }

    public static FrameResult decodeIp(byte[] packet) {
        return decodeIp(packet, 0, packet.length);
    }

    /** Decodes a bare IPv4 or IPv6 packet (LINKTYPE_RAW and friends). */
    public static FrameResult decodeIp(byte[] f, int offset, int length) {
        try {
            return decoded(RoceFrameView.ip(f, offset, offset + length));
        } catch (MalformedException e) {
            return new FrameResult.Failed(e.offset() - offset, e.reason());
        }
    }

    private static FrameResult decoded(RoceFrameView view) {
        return new FrameResult.Decoded(view.toFrame(), view.madBytes());
    }
}
