package io.cmdemux.netdev;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A parsed run of rtattr/nlattr TLVs over a read-only buffer. Lookup by type keeps the last
 * occurrence, as the kernel's nla_parse does; {@link #all} returns every occurrence for lists such
 * as IFLA_PROP_LIST. Fixed-size accessors check the length and throw {@link MalformedException}.
 */
public final class Attributes {
    /** <linux/netlink.h>: the two flag bits in nla_type. */
    public static final int NLA_F_NESTED = 0x8000;
    public static final int NLA_F_NET_BYTEORDER = 0x4000;
    public static final int NLA_TYPE_MASK = ~(NLA_F_NESTED | NLA_F_NET_BYTEORDER) & 0xffff;
    private static final int NLA_HDRLEN = 4;
    private static final int NLA_ALIGNTO = 4;
    /**
     * Types below this are found through a table indexed by type, the others by a scan. Every type a
     * decoder asks for is far below it; a table sized by whatever type the input names (up to 16383)
     * would cost 64 KiB per attribute set of a few bytes.
     */
    static final int TABLE_TYPES = 256;

    private static final Attributes EMPTY =
            new Attributes(ByteBuffer.allocate(0), new int[0], new int[0], new int[0], new int[0], new int[0]);

    private final ByteBuffer buf;
    /** Per type: index+1 into the occurrence arrays of its last occurrence, or 0. */
    private final int[] lastByType;
    private final int[] types;
    private final int[] starts;
    private final int[] lengths;
    private final int[] headerOffsets;

    private Attributes(
            ByteBuffer buf, int[] lastByType, int[] types, int[] starts, int[] lengths, int[] headerOffsets) {
        this.buf = buf;
        this.lastByType = lastByType;
        this.types = types;
        this.starts = starts;
        this.lengths = lengths;
        this.headerOffsets = headerOffsets;
    }

    public static Attributes empty() {
        return EMPTY;
    }

    /** The kernel's NLA_ALIGN: where the next attribute starts after one of {@code len} bytes. */
    public static int align(int len) {
        return (len + NLA_ALIGNTO - 1) & -NLA_ALIGNTO;
    }

    /** Parses the attributes in buf[from, to). Offsets in errors are relative to the buffer's start. */
    public static Attributes parse(ByteBuffer buffer, int from, int to) throws MalformedException {
        ByteBuffer b = buffer.duplicate().order(ByteOrder.nativeOrder());
        if (from < 0 || to > b.limit() || from > to) {
            throw new MalformedException(
                    from, "attribute range [" + from + "," + to + ") outside " + b.limit() + " bytes");
        }
        int count = 0;
        int maxType = -1;
        int pos = from;
        int[] t = new int[8];
        int[] s = new int[8];
        int[] l = new int[8];
        int[] h = new int[8];
        while (to - pos >= NLA_HDRLEN) {
            int len = Short.toUnsignedInt(b.getShort(pos));
            int type = Short.toUnsignedInt(b.getShort(pos + 2)) & NLA_TYPE_MASK;
            if (len < NLA_HDRLEN) {
                throw new MalformedException(
                        pos, "attribute type " + type + " has length " + len + ", below its header");
            }
            if (len > to - pos) {
                throw new MalformedException(pos,
                        "attribute type " + type + " has length " + len + " but only " + (to - pos) + " bytes remain");
            }
            if (count == t.length) {
                t = Arrays.copyOf(t, count * 2);
                s = Arrays.copyOf(s, count * 2);
                l = Arrays.copyOf(l, count * 2);
                h = Arrays.copyOf(h, count * 2);
            }
            t[count] = type;
            s[count] = pos + NLA_HDRLEN;
            l[count] = len - NLA_HDRLEN;
            h[count] = pos;
            count++;
            maxType = Math.max(maxType, type);
            pos += align(len);
        }
        // Trailing bytes shorter than a header are padding the kernel never sends; tolerate them as nla_parse does.
        int[] last = new int[Math.min(maxType + 1, TABLE_TYPES)];
        for (int i = 0; i < count; i++) {
            if (t[i] < TABLE_TYPES) {
                last[t[i]] = i + 1;
            }
        }
        return new Attributes(b, last, Arrays.copyOf(t, count), Arrays.copyOf(s, count), Arrays.copyOf(l, count),
                Arrays.copyOf(h, count));
    }

    public int size() {
        return types.length;
    }

    public boolean has(int type) {
        return lastIndex(type) >= 0;
    }

    /** The index of the type's last occurrence, or -1. */
    private int lastIndex(int type) {
        if (type < TABLE_TYPES) {
            return type >= 0 && type < lastByType.length ? lastByType[type] - 1 : -1;
        }
        for (int i = types.length - 1; i >= 0; i--) {
            if (types[i] == type) {
                return i;
            }
        }
        return -1;
    }

    private int index(int type) {
        int i = lastIndex(type);
        if (i < 0) {
            throw new IllegalArgumentException("attribute " + type + " absent; check has() first");
        }
        return i;
    }

    /** Offset of the attribute's header, for error messages. */
    public int offsetOf(int type) {
        return headerOffsets[index(type)];
    }

    public int length(int type) {
        return lengths[index(type)];
    }

    private int fixed(int type, int size) throws MalformedException {
        int i = index(type);
        if (lengths[i] < size) {
            throw new MalformedException(headerOffsets[i],
                    "attribute type " + type + " has " + lengths[i] + " bytes of payload, needs " + size);
        }
        return starts[i];
    }

    public int u8(int type) throws MalformedException {
        return Byte.toUnsignedInt(buf.get(fixed(type, 1)));
    }

    public int u16(int type) throws MalformedException {
        return Short.toUnsignedInt(buf.getShort(fixed(type, 2)));
    }

    /** A big-endian u16 (nla_put_be16), e.g. IFLA_VLAN_PROTOCOL, whatever the host's byte order. */
    public int be16(int type) throws MalformedException {
        int p = fixed(type, 2);
        // Byte by byte: reversing a native-order read is only right on little-endian hosts.
        return (Byte.toUnsignedInt(buf.get(p)) << 8) | Byte.toUnsignedInt(buf.get(p + 1));
    }

    public int u32(int type) throws MalformedException {
        return buf.getInt(fixed(type, 4));
    }

    public int s32(int type) throws MalformedException {
        return buf.getInt(fixed(type, 4));
    }

    public long u64(int type) throws MalformedException {
        return buf.getLong(fixed(type, 8));
    }

    public byte[] bytes(int type) {
        int i = index(type);
        byte[] out = new byte[lengths[i]];
        buf.get(starts[i], out);
        return out;
    }

    /** A NUL-terminated string; the terminator is optional, as in nla_strscpy. */
    public String string(int type) {
        int i = index(type);
        return stringAt(starts[i], lengths[i]);
    }

    private String stringAt(int start, int len) {
        int n = 0;
        while (n < len && buf.get(start + n) != 0) {
            n++;
        }
        byte[] out = new byte[n];
        buf.get(start, out);
        return new String(out, StandardCharsets.UTF_8);
    }

    /**
     * A 4-byte IPv4 or 16-byte IPv6 address. Sixteen bytes always give an {@link Inet6Address}, even
     * ::ffff:a.b.c.d: InetAddress.getByAddress would turn that into an IPv4 address, but the kernel
     * keeps it an IPv6 one (an AF_INET6 route or address) and iproute2 prints it as such.
     */
    public InetAddress address(int type) throws MalformedException {
        int i = index(type);
        if (lengths[i] != 4 && lengths[i] != 16) {
            throw new MalformedException(headerOffsets[i],
                    "attribute type " + type + " has " + lengths[i] + " bytes, not an IPv4 or IPv6 address");
        }
        try {
            return lengths[i] == 16
                    ? Inet6Address.getByAddress(null, bytes(type), -1)
                    : InetAddress.getByAddress(bytes(type));
        } catch (UnknownHostException e) {
            throw new AssertionError("4 or 16 bytes are always an address", e);
        }
    }

    public Attributes nested(int type) throws MalformedException {
        int i = index(type);
        return parse(buf, starts[i], starts[i] + lengths[i]);
    }

    /** Every occurrence of a type, as strings (e.g. IFLA_ALT_IFNAME inside IFLA_PROP_LIST). */
    public List<String> allStrings(int type) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < types.length; i++) {
            if (types[i] == type) {
                out.add(stringAt(starts[i], lengths[i]));
            }
        }
        return out;
    }

    /** Every occurrence's payload as a nested attribute run, e.g. RTA_MULTIPATH entries. */
    public ByteBuffer payload(int type) {
        int i = index(type);
        return buf.slice(starts[i], lengths[i]).order(ByteOrder.nativeOrder());
    }
}
