package io.cmdemux.ingress.wire;

import java.net.InetAddress;

/** Frames for tests, with header sizes from the specs (Ethernet 14, 802.1Q 4, IPv4 20, IPv6 40, UDP 8, BTH 12, DETH 8). */
final class Frames {
    static final int ETH = 14;
    static final int VLAN = 4;
    static final int IPV4 = 20;
    static final int IPV6 = 40;
    static final int UDP = 8;
    static final int BTH = 12;
    static final int DETH = 8;

    private Frames() {}

    static InetAddress addr(String text) {
        try {
            return InetAddress.getByName(text);
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    static byte[] reqV4(Vlan vlan) {
        return frame(vlan, addr("10.0.0.2"), addr("10.0.0.5"), CmSamples.req(addr("10.0.0.2"), addr("10.0.0.5")));
    }

    static byte[] frame(Vlan vlan, InetAddress src, InetAddress dst, CmMessage m) {
        return RoceFrameBuilder.cmFrame(CmSamples.l2(vlan), CmSamples.l3(src, dst), 0xC001, 0xFFFF, 5, Mad.of(m, 0x42));
    }

    /** A CM MAD (base version 1, class 7, class version 2, method Send) with {@code data} as its 232 bytes of CM data. */
    static byte[] sendMad(CmAttribute attribute, byte[] data) {
        byte[] mad = new byte[Mad.SIZE];
        mad[0] = 1;
        mad[1] = 7;
        mad[2] = 2;
        mad[3] = 3;
        mad[17] = (byte) attribute.id();
        System.arraycopy(data, 0, mad, MadHeader.SIZE, data.length);
        return mad;
    }

    /** Offset of the MAD in an untagged IPv4 frame. */
    static final int MAD_V4 = ETH + IPV4 + UDP + BTH + DETH;
}
