package io.cmdemux.ingress.wire;

import io.cmdemux.gid.Gid;
import io.cmdemux.netdev.MalformedException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * The 36-byte rdma_cm header at the start of a REQ's private data (struct cma_hdr in
 * drivers/infiniband/core/cma.c; IBTA Annex A11): version, IP version in bits 7:4 of byte 1, source
 * port, source and destination address. An IPv4 address sits in the last 4 of its 16 bytes, after
 * 12 zero bytes. Every bit is kept as it was, {@code reserved} (bits 3:0 of byte 1, which
 * cma_get_ip_ver does not look at) too; {@link CmAddressing} says how the kernel reads them.
 */
public record CmaHeader(int cmaVersion, int ipVersion, int reserved, int srcPort, Gid srcAddr, Gid dstAddr) {
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
        Be.check("reserved", reserved, 4);
        Be.check("srcPort", srcPort, 16);
    }

    /** The header rdma_cm writes for a connection from {@code src:srcPort} to {@code dst}. */
    public static CmaHeader of(InetAddress src, int srcPort, InetAddress dst) {
        if ((src instanceof Inet4Address) != (dst instanceof Inet4Address)) {
            throw new IllegalArgumentException("source and destination must be the same family");
        }
        int version = src instanceof Inet4Address ? 4 : 6;
        return new CmaHeader(CMA_VERSION, version, 0, srcPort, raw(src), raw(dst));
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

    /**
     * The header at the start of a REQ's or SIDR REQ's private data, which cma_save_ip_info reads from
     * every request; their 92 and 216 bytes always hold it.
     */
    public static CmaHeader ofRequest(CmMessage request) {
        if (!(request instanceof CmReq || request instanceof CmSidrReq)) {
            throw new IllegalArgumentException(request.attribute() + " carries no rdma_cm header");
        }
        return read(request.privateData().toByteArray(), 0);
    }

    /** The same, from private data at {@code b[offset .. offset+length)}; error offsets are relative to it. */
    static CmaHeader decode(byte[] b, int offset, int length) throws MalformedException {
        if (length < SIZE) {
            throw new MalformedException(
                    0, "private data of " + length + " bytes cannot hold the 36-byte rdma_cm header");
        }
        return read(b, offset);
    }

    /** The header at {@code b[offset]}, where private data of at least 36 bytes starts. */
    static CmaHeader read(byte[] b, int offset) {
        int ipVersionByte = Be.u8(b, offset + OFF_IP_VERSION);
        return new CmaHeader(Be.u8(b, offset + OFF_VERSION), ipVersionByte >>> 4, ipVersionByte & 0xf,
                Be.u16(b, offset + OFF_PORT), Gid.read(b, offset + OFF_SRC), Gid.read(b, offset + OFF_DST));
    }

    /** An address field as cma_save_ip4_info reads it: the IPv4 address in its last 4 bytes, whatever the 12 before. */
    public static InetAddress asIpv4(Gid field) {
        byte[] b = new byte[4];
        Be.put32(b, 0, (int) field.lo());
        try {
            return Inet4Address.getByAddress(b);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * An address field as cma_save_ip6_info reads it: all 16 bytes, an IPv6 address even when they look IPv4-mapped.
     */
    public static InetAddress asIpv6(Gid field) {
        try {
            return Inet6Address.getByAddress(null, field.bytes(), -1);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The private data after the header: what the consumer gave rdma_connect, which cma_format_hdr puts behind it. */
    public static Octets consumerData(Octets privateData) {
        return privateData.slice(SIZE, privateData.length() - SIZE);
    }

    /** Private data of {@code CmReq.PRIVATE_DATA_SIZE} bytes: this header, then {@code consumerData}. */
    public Octets toPrivateData(byte[] consumerData) {
        byte[] b = new byte[CmReq.PRIVATE_DATA_SIZE];
        if (consumerData.length > b.length - SIZE) {
            throw new IllegalArgumentException(
                    "consumer data of " + consumerData.length + " bytes exceeds " + (b.length - SIZE));
        }
        Be.put8(b, OFF_VERSION, cmaVersion);
        Be.put8(b, OFF_IP_VERSION, ipVersion << 4 | reserved);
        Be.put16(b, OFF_PORT, srcPort);
        srcAddr.write(b, OFF_SRC);
        dstAddr.write(b, OFF_DST);
        System.arraycopy(consumerData, 0, b, SIZE, consumerData.length);
        return Octets.of(b);
    }
}
