package io.cmdemux.ingress.wire;

import io.cmdemux.netdev.InetAddresses;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * A 128-bit GID or IPv6 address, held as two longs so that decoding allocates no array. An IPv4
 * address is held in its IPv4-mapped form, ::ffff:a.b.c.d, as RoCEv2 GIDs carry it.
 */
public record Gid(long hi, long lo) {
    public static final Gid ZERO = new Gid(0, 0);
    private static final long V4_MAPPED_MASK = 0xffffffff00000000L;
    private static final long V4_MAPPED_TAG = 0x0000ffff00000000L;

    public static Gid read(byte[] b, int offset) {
        return new Gid(Be.u64(b, offset), Be.u64(b, offset + 8));
    }

    public void write(byte[] b, int offset) {
        Be.put64(b, offset, hi);
        Be.put64(b, offset + 8, lo);
    }

    public static Gid of(byte[] sixteen) {
        if (sixteen.length != 16) {
            throw new IllegalArgumentException("a GID has 16 bytes, not " + sixteen.length);
        }
        return read(sixteen, 0);
    }

    /** An IPv6 address as is, an IPv4 address as ::ffff:a.b.c.d. */
    public static Gid of(InetAddress address) {
        byte[] a = address.getAddress();
        if (a.length == 4) {
            return ipv4Mapped(Be.u32(a, 0));
        }
        return read(a, 0);
    }

    public static Gid ipv4Mapped(int ipv4) {
        return new Gid(0, V4_MAPPED_TAG | (ipv4 & 0xffffffffL));
    }

    /** Parses address text ("fe80::1", "10.0.0.2", "::ffff:10.0.0.2") without DNS. */
    public static Gid parse(String text) {
        return of(InetAddresses.parse(text));
    }

    public boolean isIpv4Mapped() {
        return hi == 0 && (lo & V4_MAPPED_MASK) == V4_MAPPED_TAG;
    }

    public byte[] toBytes() {
        byte[] b = new byte[16];
        write(b, 0);
        return b;
    }

    /** The IPv4 address for an IPv4-mapped value, else the IPv6 address. */
    public InetAddress toInetAddress() {
        try {
            if (isIpv4Mapped()) {
                byte[] v4 = new byte[4];
                Be.put32(v4, 0, (int) lo);
                return Inet4Address.getByAddress(v4);
            }
            return Inet6Address.getByAddress(null, toBytes(), -1);
        } catch (UnknownHostException e) {
            throw new IllegalStateException("16 or 4 bytes are always an address", e);
        }
    }

    /** RFC 5952 text, IPv4-mapped values as ::ffff:a.b.c.d (the way inet_ntop and tshark print GIDs). */
    @Override
    public String toString() {
        try {
            return InetAddresses.toText(Inet6Address.getByAddress(null, toBytes(), -1));
        } catch (UnknownHostException e) {
            throw new IllegalStateException("16 bytes are always an IPv6 address", e);
        }
    }
}
