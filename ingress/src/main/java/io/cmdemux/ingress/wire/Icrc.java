package io.cmdemux.ingress.wire;

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
    private static final byte[] PSEUDO_LRH = {-1, -1, -1, -1, -1, -1, -1, -1};
    private static final int UDP_HEADER = 8;

    private Icrc() {}

    /**
     * The ICRC of the frame whose IP header starts at {@code l3} and whose ICRC starts at {@code end}.
     * The caller has checked that the IP, UDP and BTH headers lie inside the array.
     */
    public static int compute(byte[] f, int l3, int ipHeaderLength, int end) {
        // The masked headers go through one scratch copy, so the CRC runs as two bulk (intrinsic) passes;
        // byte-at-a-time CRC32.update(int) calls cost ten times the whole frame's CRC.
        int headers = ipHeaderLength + UDP_HEADER + Bth.SIZE;
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
        h[udp + UDP_HEADER + 4] = (byte) 0xff; // BTH byte 4: FECN, BECN, reserved
        CRC32 crc = new CRC32();
        crc.update(h, 0, h.length);
        int payload = l3 + headers;
        crc.update(f, payload, end - payload);
        return (int) crc.getValue();
    }

    /** The ICRC as stored at {@code f[end]}: little-endian. */
    static int read(byte[] f, int end) {
        return (f[end] & 0xff) | (f[end + 1] & 0xff) << 8 | (f[end + 2] & 0xff) << 16 | (f[end + 3] & 0xff) << 24;
    }

    static void write(byte[] f, int end, int icrc) {
        f[end] = (byte) icrc;
        f[end + 1] = (byte) (icrc >>> 8);
        f[end + 2] = (byte) (icrc >>> 16);
        f[end + 3] = (byte) (icrc >>> 24);
    }
}
