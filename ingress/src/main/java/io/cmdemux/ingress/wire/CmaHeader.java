package io.cmdemux.ingress.wire;

import io.cmdemux.gid.Gid;
import io.cmdemux.netdev.MalformedException;
import java.net.Inet4Address;
import java.net.InetAddress;

/**
 * The 36-byte rdma_cm header at the start of a REQ's private data (struct cma_hdr in
 * drivers/infiniband/core/cma.c; IBTA Annex A11): version, IP version in bits 7:4 of byte 1, source
 * port, source and destination address. An IPv4 address sits in the last 4 of its 16 bytes, after
 * 12 zero bytes. The addresses are kept raw; {@link CmAddressing} interprets them.
 */
public record CmaHeader(int cmaVersion, int ipVersion, int srcPort, Gid srcAddr, Gid dstAddr) {
    public static final int SIZE = 36;
    public static final int CMA_VERSION = 0x00; // CMA_VERSION in cma.c
    static final int OFF_VERSION = 0;
    static final int OFF_IP_VERSION = 1;
    static final int OFF_PORT = 2;
    static final int OFF_SRC = 4;
    static final int OFF_DST = 20;

    public CmaHeader {
        Be.check("cmaVersion", cmaVersion, 8);
        Be.check("ipVersion", ipVersion, 4);
        Be.check("srcPort", srcPort, 16);
    }

    /** The header rdma_cm writes for a connection from {@code src:srcPort} to {@code dst}. */
    public static CmaHeader of(InetAddress src, int srcPort, InetAddress dst) {
        if ((src instanceof Inet4Address) != (dst instanceof Inet4Address)) {
            throw new IllegalArgumentException("source and destination must be the same family");
        }
        int version = src instanceof Inet4Address ? 4 : 6;
        return new CmaHeader(CMA_VERSION, version, srcPort, raw(src), raw(dst));
    }

    private static Gid raw(InetAddress a) {
        byte[] b = a.getAddress();
        return b.length == 4 ? new Gid(0, Be.u32(b, 0) & 0xffffffffL) : Gid.of(b);
    }

    /** Reads the header from the first 36 bytes of a REQ's private data. */
    public static CmaHeader decode(Octets privateData) throws MalformedException {
        byte[] b = privateData.toByteArray();
        return decode(b, 0, b.length);
    }

    /** The same, from private data at {@code b[offset .. offset+length)}; error offsets are relative to it. */
    static CmaHeader decode(byte[] b, int offset, int length) throws MalformedException {
        if (length < SIZE) {
            throw new MalformedException(0, "private data of " + length + " bytes cannot hold the 36-byte rdma_cm header");
        }
        return read(b, offset);
    }

    /** The header at {@code b[offset]}, where private data of at least 36 bytes starts. */
    static CmaHeader read(byte[] b, int offset) {
        return new CmaHeader(Be.u8(b, offset + OFF_VERSION), Be.u8(b, offset + OFF_IP_VERSION) >>> 4, Be.u16(b, offset + OFF_PORT),
                Gid.read(b, offset + OFF_SRC), Gid.read(b, offset + OFF_DST));
    }

    /** Private data of {@code CmReq.PRIVATE_DATA_SIZE} bytes: this header, then {@code consumerData}. */
    public Octets toPrivateData(byte[] consumerData) {
        byte[] b = new byte[CmReq.PRIVATE_DATA_SIZE];
        if (consumerData.length > b.length - SIZE) {
            throw new IllegalArgumentException("consumer data of " + consumerData.length + " bytes exceeds " + (b.length - SIZE));
        }
        Be.put8(b, OFF_VERSION, cmaVersion);
        Be.put8(b, OFF_IP_VERSION, ipVersion << 4);
        Be.put16(b, OFF_PORT, srcPort);
        srcAddr.write(b, OFF_SRC);
        dstAddr.write(b, OFF_DST);
        System.arraycopy(consumerData, 0, b, SIZE, consumerData.length);
        return Octets.of(b);
    }
}
