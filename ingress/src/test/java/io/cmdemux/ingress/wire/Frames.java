package io.cmdemux.ingress.wire;

import java.net.InetAddress;

/**
 * Frames for tests, with header sizes from the specs (Ethernet 14, 802.1Q 4, IPv4 20, IPv6 40, UDP 8, BTH 12, DETH 8).
 */
public final class Frames {
    static final int ETH = 14;
    static final int VLAN = 4;
    static final int IPV4 = 20;
    static final int IPV6 = 40;
    static final int UDP = 8;
    static final int BTH = 12;
    static final int DETH = 8;

    private Frames() {}

    public static InetAddress addr(String text) {
        try {
            return InetAddress.getByName(text);
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    public static byte[] reqV4(Vlan vlan) {
        return frame(vlan, addr("10.0.0.2"), addr("10.0.0.5"), CmSamples.req(addr("10.0.0.2"), addr("10.0.0.5")));
    }

    public static byte[] frame(Vlan vlan, InetAddress src, InetAddress dst, CmMessage m) {
        return RoceFrameBuilder.cmFrame(CmSamples.l2(vlan), CmSamples.l3(src, dst), 0xC001, 0xFFFF, 5, Mad.of(m, 0x42));
    }

    /**
     * A CM MAD (base version 1, class 7, class version 2, method Send) with {@code data} as its 232 bytes of CM data.
     */
    public static byte[] sendMad(CmAttribute attribute, byte[] data) {
        byte[] mad = new byte[Mad.SIZE];
        mad[0] = 1;
        mad[1] = 7;
        mad[2] = 2;
        mad[3] = 3;
        mad[17] = (byte) attribute.id();
        System.arraycopy(data, 0, mad, MadHeader.SIZE, data.length);
        return mad;
    }

    /**
     * The Ethernet frame without its ICRC: the last 4 bytes cut off and the IP and UDP lengths saying so,
     * as a sender that forgot the ICRC would send it.
     */
    public static byte[] withoutIcrc(byte[] frame) {
        byte[] f = java.util.Arrays.copyOf(frame, frame.length - 4);
        int l3 = l3At(f);
        boolean v4 = (f[l3] & 0xf0) == 0x40;
        if (v4) {
            Be.put16(f, l3 + 2, Be.u16(f, l3 + 2) - 4);
            Be.put16(f, l3 + 10, 0);
            Be.put16(f, l3 + 10, RoceFrameBuilder.ipv4Checksum(f, l3));
        } else {
            Be.put16(f, l3 + 4, Be.u16(f, l3 + 4) - 4);
        }
        int udp = l3 + (v4 ? IPV4 : IPV6);
        Be.put16(f, udp + 4, Be.u16(f, udp + 4) - 4);
        return f;
    }

    /**
     * An Ethernet frame of {@link RoceFrameBuilder#cmFrame} with {@code mad} as its MAD, byte for byte
     * (reserved bits too, which no encoder writes), and the ICRC made for it.
     */
    public static byte[] withMad(byte[] frame, byte[] mad) {
        byte[] f = frame.clone();
        int icrcAt = f.length - Icrc.SIZE;
        System.arraycopy(mad, 0, f, icrcAt - Mad.SIZE, Mad.SIZE);
        int l3 = l3At(f);
        Icrc.write(f, icrcAt, Icrc.compute(f, l3, (f[l3] & 0xf0) == 0x40 ? IPV4 : IPV6, icrcAt));
        return f;
    }

    private static int l3At(byte[] ethernetFrame) {
        return Be.u16(ethernetFrame, 12) == RoceDecoder.ETHERTYPE_VLAN ? ETH + VLAN : ETH;
    }

    /** Offset of the MAD in an untagged IPv4 frame. */
    static final int MAD_V4 = ETH + IPV4 + UDP + BTH + DETH;
}
