package io.cmdemux.ingress.wire;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.zip.CRC32;

/**
 * The RoCEv2 invariant CRC (IBTA Annex A17.3.3; rxe_icrc.c). CRC-32 over 8 bytes of 0xFF (the
 * pseudo-LRH), then the IP header with the fields that routers may change set to ones (IPv4: TOS, TTL,
 * header checksum; IPv6: traffic class, flow label, hop limit), the UDP header with its checksum set to
 * ones, the BTH with byte 4 (FECN, BECN, reserved) set to ones, and the payload. It goes on the wire
 * little-endian. java.util.zip.CRC32 is that CRC (reflected 0x04C11DB7, inverted in and out).
 */
public final class Icrc {
    public static final int SIZE = 4;
    private static final VarHandle LE_INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final byte[] PSEUDO_LRH = {-1, -1, -1, -1, -1, -1, -1, -1};

    private Icrc() {}

    /**
     * The ICRC of the frame whose IP header starts at {@code l3} and whose ICRC starts at {@code end}.
     * The caller has checked that the IP, UDP and BTH headers lie inside the array.
     */
    public static int compute(byte[] f, int l3, int ipHeaderLength, int end) {
        if ((f[l3] & 0xf0) == 0x40) {
            return ipHeaderLength == RoceDecoder.IPV4_HEADER && end - l3 == Shape.V4.length
                    ? v4(f, l3)
                    : computeByCopy(f, l3, ipHeaderLength, end);
        }
        return end - l3 == Shape.V6.length ? v6(f, l3) : computeByCopy(f, l3, ipHeaderLength, end);
    }

    // One table entry per masked byte, spelled out: a loop over the positions costs as much again. The
    // tables are static finals so that the JIT knows their length, and the indexes are sums, whose range
    // it knows (of an OR it does not), so that it drops the bounds checks.
    private static final int[] V4_TABLE = Shape.V4.table;
    private static final int[] V6_TABLE = Shape.V6.table;

    private static int v4(byte[] f, int l3) {
        return v4(f, l3, f[l3 + 1], f[l3 + 8], Be.u16(f, l3 + 10), Be.u16(f, l3 + 26), f[l3 + 32]);
    }

    /**
     * {@link #compute} for an IPv4 frame without options, given the bytes it masks, which a caller that
     * has just read them as parts of wider words passes on: only their low 8 or 16 bits count.
     */
    static int v4(byte[] f, int l3, int tos, int ttl, int ipChecksum, int udpChecksum, int bthByte4) {
        int[] t = V4_TABLE;
        return Shape.V4.crc(f, l3)
                ^ t[~tos & 0xff]
                ^ t[0x100 + (~ttl & 0xff)]
                ^ t[0x200 + (~ipChecksum >>> 8 & 0xff)]
                ^ t[0x300 + (~ipChecksum & 0xff)]
                ^ t[0x400 + (~udpChecksum >>> 8 & 0xff)]
                ^ t[0x500 + (~udpChecksum & 0xff)]
                ^ t[0x600 + (~bthByte4 & 0xff)];
    }

    private static int v6(byte[] f, int l3) {
        return v6(f, l3, Be.u32(f, l3), f[l3 + 7], Be.u16(f, l3 + 46), f[l3 + 52]);
    }

    /**
     * {@link #compute} for an IPv6 frame, given the bytes it masks, as
     * {@link #v4(byte[], int, int, int, int, int, int)}.
     */
    static int v6(byte[] f, int l3, int versionClassFlow, int hopLimit, int udpChecksum, int bthByte4) {
        int[] t = V6_TABLE;
        return Shape.V6.crc(f, l3)
                ^ t[~versionClassFlow >>> 24 & 0x0f]
                ^ t[0x100 + (~versionClassFlow >>> 16 & 0xff)]
                ^ t[0x200 + (~versionClassFlow >>> 8 & 0xff)]
                ^ t[0x300 + (~versionClassFlow & 0xff)]
                ^ t[0x400 + (~hopLimit & 0xff)]
                ^ t[0x500 + (~udpChecksum >>> 8 & 0xff)]
                ^ t[0x600 + (~udpChecksum & 0xff)]
                ^ t[0x700 + (~bthByte4 & 0xff)];
    }

    /** The definition, for any header and pad length: mask a copy of the headers, then CRC the lot. */
    static int computeByCopy(byte[] f, int l3, int ipHeaderLength, int end) {
        int headers = ipHeaderLength + RoceDecoder.UDP_HEADER + Bth.SIZE;
        byte[] h = new byte[PSEUDO_LRH.length + headers];
        System.arraycopy(PSEUDO_LRH, 0, h, 0, PSEUDO_LRH.length);
        System.arraycopy(f, l3, h, PSEUDO_LRH.length, headers);
        int ip = PSEUDO_LRH.length;
        if ((f[l3] & 0xf0) == 0x40) {
            h[ip + 1] = (byte) 0xff; // TOS
            h[ip + 8] = (byte) 0xff; // TTL
            h[ip + 10] = (byte) 0xff; // header checksum
            h[ip + 11] = (byte) 0xff;
        } else {
            h[ip] |= 0x0f; // traffic class, high nibble
            h[ip + 1] = (byte) 0xff; // traffic class low nibble, flow label
            h[ip + 2] = (byte) 0xff;
            h[ip + 3] = (byte) 0xff;
            h[ip + 7] = (byte) 0xff; // hop limit
        }
        int udp = ip + ipHeaderLength;
        h[udp + 6] = (byte) 0xff; // UDP checksum
        h[udp + 7] = (byte) 0xff;
        h[udp + RoceDecoder.UDP_HEADER + 4] = (byte) 0xff; // BTH byte 4: FECN, BECN, reserved
        CRC32 crc = new CRC32();
        crc.update(h, 0, h.length);
        int payload = l3 + headers;
        crc.update(f, payload, end - payload);
        return (int) crc.getValue();
    }

    /**
     * The ICRC of a CM MAD frame of one fixed shape (IPv4 without options, or IPv6; no pad), taken in one
     * CRC pass over the frame as it is and then corrected. CRC-32 is affine over GF(2): for messages of
     * one length n, crc(a ^ b) = crc(a) ^ crc(b) ^ crc(0^n). The masked frame is the frame XOR a few
     * difference bytes d (d = mask & ~byte), and the pseudo-LRH in front adds a constant, so
     * icrc = crc(frame) ^ K ^ the XOR of one table entry per masked byte, where the entry is what that
     * difference byte at that distance from the end adds. This avoids the copy and the second pass,
     * which cost three times a bare CRC of the frame.
     */
    private static final class Shape {
        // The masked bytes in the order of v4() and v6(): the IP ones, the UDP checksum, BTH byte 4.
        static final Shape V4 = new Shape(RoceDecoder.IPV4_HEADER, 1, 8, 10, 11); // TOS, TTL, header checksum
        static final Shape V6 =
                new Shape(RoceDecoder.IPV6_HEADER, 0, 1, 2, 3, 7); // traffic class, flow label, hop limit

        final int length;
        final int[] at;
        /** 256 entries for each masked byte, in the order of {@link #at}. */
        final int[] table;
        final int k;

        private Shape(int ipHeaderLength, int... ipAt) {
            int udp = ipHeaderLength;
            length = ipHeaderLength + RoceDecoder.UDP_HEADER + Bth.SIZE + Deth.SIZE + Mad.SIZE;
            at = Arrays.copyOf(ipAt, ipAt.length + 3);
            at[ipAt.length] = udp + 6; // UDP checksum
            at[ipAt.length + 1] = udp + 7;
            at[ipAt.length + 2] = udp + RoceDecoder.UDP_HEADER + 4; // BTH byte 4
            int zero = crc(new byte[length]);
            byte[] lrhThenZeros = new byte[PSEUDO_LRH.length + length];
            System.arraycopy(PSEUDO_LRH, 0, lrhThenZeros, 0, PSEUDO_LRH.length);
            k = zero ^ crc(lrhThenZeros);
            table = new int[at.length * 256];
            for (int i = 0; i < at.length; i++) {
                byte[] one = new byte[length];
                for (int bit = 0; bit < 8; bit++) {
                    one[at[i]] = (byte) (1 << bit);
                    int unit = crc(one) ^ zero;
                    for (int v = 1 << bit; v < 2 << bit; v++) {
                        table[i * 256 + v] =
                                table[i * 256 + v - (1 << bit)] ^ unit; // linear in the difference byte too
                    }
                }
            }
        }

        /** The CRC of the frame as it is, with the pseudo-LRH's constant folded in. */
        int crc(byte[] f, int l3) {
            CRC32 crc = new CRC32();
            crc.update(f, l3, length);
            return (int) crc.getValue() ^ k;
        }

        private static int crc(byte[] b) {
            CRC32 crc = new CRC32();
            crc.update(b, 0, b.length);
            return (int) crc.getValue();
        }
    }

    /** The ICRC as stored at {@code f[end]}: little-endian. */
    static int read(byte[] f, int end) {
        return (int) LE_INT.get(f, end);
    }

    static void write(byte[] f, int end, int icrc) {
        f[end] = (byte) icrc;
        f[end + 1] = (byte) (icrc >>> 8);
        f[end + 2] = (byte) (icrc >>> 16);
        f[end + 3] = (byte) (icrc >>> 24);
    }
}
