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
        CRC32 crc = new CRC32();
        crc.update(PSEUDO_LRH, 0, PSEUDO_LRH.length);
        int version = (f[l3] & 0xff) >>> 4;
        if (version == 4) {
            crc.update(f, l3, 1); // version, IHL
            crc.update(0xff); // TOS
            crc.update(f, l3 + 2, 6); // total length, ID, flags, fragment offset
            crc.update(0xff); // TTL
            crc.update(f, l3 + 9, 1); // protocol
            crc.update(0xff); // header checksum
            crc.update(0xff);
            crc.update(f, l3 + 12, ipHeaderLength - 12 + 6); // addresses, options, UDP ports and length
        } else {
            crc.update((f[l3] & 0xf0) | 0x0f); // version, traffic class high nibble
            crc.update(0xff); // traffic class low nibble, flow label
            crc.update(0xff);
            crc.update(0xff);
            crc.update(f, l3 + 4, 3); // payload length, next header
            crc.update(0xff); // hop limit
            crc.update(f, l3 + 8, ipHeaderLength - 8 + 6); // addresses, UDP ports and length
        }
        crc.update(0xff); // UDP checksum
        crc.update(0xff);
        int bth = l3 + ipHeaderLength + UDP_HEADER;
        crc.update(f, bth, 4);
        crc.update(0xff); // BTH byte 4: FECN, BECN, reserved
        crc.update(f, bth + 5, end - bth - 5);
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
