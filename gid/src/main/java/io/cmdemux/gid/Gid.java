package io.cmdemux.gid;

import io.cmdemux.netdev.InetAddresses;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HexFormat;
import java.util.Optional;

/**
 * A 128-bit GID. For RoCE it is an IPv6 address or an IPv4-mapped one (::ffff:a.b.c.d), which
 * is how the kernel stores IPv4 addresses in GID tables (rdma_ip2gid).
 */
public record Gid(long hi, long lo) {
    public static final Gid ZERO = new Gid(0, 0);
    // Read for every received request. A ByteBuffer here kept the JIT from inlining read(), and then
    // each GID read was an allocation.
    private static final VarHandle BE_LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    public static Gid of(byte[] b) {
        if (b.length != 16) {
            throw new IllegalArgumentException("a GID has 16 bytes, not " + b.length);
        }
        return read(b, 0);
    }

    /** The 16 bytes at {@code offset}, network order; no array is allocated. */
    public static Gid read(byte[] b, int offset) {
        return new Gid((long) BE_LONG.get(b, offset), (long) BE_LONG.get(b, offset + 8));
    }

    public void write(byte[] b, int offset) {
        BE_LONG.set(b, offset, hi);
        BE_LONG.set(b, offset + 8, lo);
    }

    /** ::ffff:a.b.c.d for an IPv4 address given as a 32-bit value. */
    public static Gid ipv4Mapped(int ipv4) {
        return new Gid(0, 0x0000ffff00000000L | Integer.toUnsignedLong(ipv4));
    }

    /** The GID of an IP address, as rdma_ip2gid forms it. */
    public static Gid ofIp(InetAddress ip) {
        byte[] a = ip.getAddress();
        if (ip instanceof Inet4Address) {
            return new Gid(0, 0x0000ffff00000000L | (Integer.toUnsignedLong(ByteBuffer.wrap(a).getInt())));
        }
        return of(a);
    }

    /**
     * Parses either the sysfs form ("fe80:0000:0000:0000:0000:0000:0000:0001") or any IPv6 text
     * form; an IPv4 dotted quad becomes its mapped GID.
     */
    public static Gid parse(String text) {
        String t = text.trim();
        if (t.matches("[0-9a-fA-F]{4}(:[0-9a-fA-F]{4}){7}")) {
            return of(HexFormat.of().parseHex(t.replace(":", "")));
        }
        InetAddress a = InetAddresses.parse(t);
        return ofIp(a);
    }

    /**
     * A GUID as people write it: the sysfs form ("0002:c903:0000:0001"), or hexadecimal with or without 0x
     * ("0x0002c90300000001").
     */
    public static long parseGuid(String text) {
        String t = text.trim();
        String hex = t.matches("[0-9a-fA-F]{4}(:[0-9a-fA-F]{4}){3}") ? t.replace(":", "")
                : t.startsWith("0x") || t.startsWith("0X") ? t.substring(2) : t;
        if (!hex.matches("[0-9a-fA-F]{1,16}")) {
            throw new IllegalArgumentException("not a GUID: " + text
                    + " (expected 0002:c903:0000:0001 or 0x0002c90300000001)");
        }
        return Long.parseUnsignedLong(hex, 16);
    }

    public byte[] bytes() {
        return ByteBuffer.allocate(16).putLong(hi).putLong(lo).array();
    }

    /** The address form: IPv4 for a mapped GID, IPv6 otherwise. */
    public InetAddress toInetAddress() {
        return ip().get();
    }

    public boolean isZero() {
        return hi == 0 && lo == 0;
    }

    /** ::ffff:0:0/96, an IPv4 address in GID form. */
    public boolean isIpv4Mapped() {
        return hi == 0 && (lo >>> 32) == 0xffffL;
    }

    /** The IP address this GID stands for: IPv4 when mapped, IPv6 otherwise. */
    public Optional<InetAddress> ip() {
        try {
            if (isIpv4Mapped()) {
                return Optional.of(InetAddress.getByAddress(ByteBuffer.allocate(4).putInt((int) lo).array()));
            }
            return Optional.of(InetAddress.getByAddress(bytes()));
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    /** The fixed-width form sysfs and show_gids print. */
    public String sysfsText() {
        String hex = HexFormat.of().formatHex(bytes());
        StringBuilder sb = new StringBuilder(39);
        for (int i = 0; i < 32; i += 4) {
            if (i > 0) {
                sb.append(':');
            }
            sb.append(hex, i, i + 4);
        }
        return sb.toString();
    }

    /** The compressed RFC 5952 form, "::ffff:10.0.0.5" for IPv4-mapped GIDs. */
    @Override
    public String toString() {
        if (isIpv4Mapped()) {
            return "::ffff:" + InetAddresses.toText(ip().get());
        }
        return InetAddresses.toText(ip().get());
    }
}
