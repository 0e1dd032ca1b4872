package io.cmdemux.netdev;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Streams records from a pcap or pcapng file, one at a time, so that a capture of any size reads in
 * constant memory. Bad structure gives a {@link MalformedException} with the file offset; the
 * reader never allocates more than the largest legal record.
 */
public final class PcapReader implements AutoCloseable {
    /** The largest record body we accept; libpcap's own MAXIMUM_SNAPLEN. */
    public static final int MAX_RECORD = 262144;
    private static final int PCAPNG_SHB = 0x0A0D0D0A;
    private static final int PCAPNG_IDB = 1;
    private static final int PCAPNG_SPB = 3;
    private static final int PCAPNG_EPB = 6;
    private static final int PCAPNG_BYTE_ORDER_MAGIC = 0x1A2B3C4D;

    private final InputStream in;
    private final boolean ng;
    private ByteOrder order;
    private boolean nanos;
    private int linktype;
    private long offset;
    private long index;
    private final List<Integer> ngLinktypes = new ArrayList<>();
    /** Per interface of the current section: its if_tsresol byte (6, microseconds, when absent). */
    private final List<Integer> ngTsresol = new ArrayList<>();

    /** One record. {@code index} counts from 1, like tshark's frame numbers. */
    public record Record(
            long index, long fileOffset, int linktype, long timestampNanos, int originalLength, byte[] data) {}

    public PcapReader(InputStream input) throws IOException, MalformedException {
        this.in = new BufferedInputStream(input, 1 << 16);
        byte[] magic = readExactly(4, "file header");
        int le = ByteBuffer.wrap(magic).order(ByteOrder.LITTLE_ENDIAN).getInt();
        int be = ByteBuffer.wrap(magic).order(ByteOrder.BIG_ENDIAN).getInt();
        if (le == PCAPNG_SHB) {
            ng = true;
            readSectionHeaderRest();
        } else {
            ng = false;
            if (le == 0xa1b2c3d4 || le == 0xa1b23c4d) {
                order = ByteOrder.LITTLE_ENDIAN;
                nanos = le == 0xa1b23c4d;
            } else if (be == 0xa1b2c3d4 || be == 0xa1b23c4d) {
                order = ByteOrder.BIG_ENDIAN;
                nanos = be == 0xa1b23c4d;
            } else {
                throw new MalformedException(0, String.format("not a pcap or pcapng file (magic %08x)", be));
            }
            ByteBuffer h = ByteBuffer.wrap(readExactly(20, "file header")).order(order);
            linktype = h.getInt(16) & 0x0fffffff; // the top bits carry FCS flags
        }
    }

    public boolean pcapng() {
        return ng;
    }

    /** The next record, or null at a clean end of file. */
    public Record next() throws IOException, MalformedException {
        return ng ? nextNg() : nextClassic();
    }

    private Record nextClassic() throws IOException, MalformedException {
        long start = offset;
        byte[] hdr = readUpTo(16);
        if (hdr == null) {
            return null;
        }
        ByteBuffer h = ByteBuffer.wrap(hdr).order(order);
        long sec = Integer.toUnsignedLong(h.getInt(0));
        long frac = Integer.toUnsignedLong(h.getInt(4));
        int incl = h.getInt(8);
        int orig = h.getInt(12);
        if (incl < 0 || incl > MAX_RECORD) {
            throw new MalformedException((int) Math.min(start + 8, Integer.MAX_VALUE),
                    "record " + (index + 1) + " claims " + Integer.toUnsignedString(incl) + " captured bytes (limit "
                            + MAX_RECORD + ")");
        }
        byte[] data = readExactly(incl, "record " + (index + 1));
        index++;
        long ts = sec * 1_000_000_000L + (nanos ? frac : frac * 1000);
        return new Record(index, start, linktype, ts, orig, data);
    }

    private void readSectionHeaderRest() throws IOException, MalformedException {
        // Called with the block type already read: block length, byte-order magic, then the rest.
        byte[] lenAndMagic = readExactly(8, "section header");
        int magicLe = ByteBuffer.wrap(lenAndMagic, 4, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
        if (magicLe == PCAPNG_BYTE_ORDER_MAGIC) {
            order = ByteOrder.LITTLE_ENDIAN;
        } else if (Integer.reverseBytes(magicLe) == PCAPNG_BYTE_ORDER_MAGIC) {
            order = ByteOrder.BIG_ENDIAN;
        } else {
            throw new MalformedException((int) offset - 4, "pcapng section header without the byte-order magic");
        }
        int total = ByteBuffer.wrap(lenAndMagic, 0, 4).order(order).getInt();
        checkBlockLength(total, offset - 12, 28);
        skip(total - 12);
        ngLinktypes.clear();
        ngTsresol.clear();
    }

    private Record nextNg() throws IOException, MalformedException {
        while (true) {
            long start = offset;
            byte[] th = readUpTo(4);
            if (th == null) {
                return null;
            }
            int typeLe = ByteBuffer.wrap(th).order(ByteOrder.LITTLE_ENDIAN).getInt();
            if (typeLe == PCAPNG_SHB) {
                readSectionHeaderRest();
                continue;
            }
            int type = ByteBuffer.wrap(th).order(order).getInt();
            int total = ByteBuffer.wrap(readExactly(4, "block length")).order(order).getInt();
            checkBlockLength(total, start, 12);
            byte[] body = readExactly(total - 12, "block body");
            readExactly(4, "block trailer");
            ByteBuffer b = ByteBuffer.wrap(body).order(order);
            switch (type) {
                case PCAPNG_IDB -> {
                    if (body.length < 8) {
                        throw new MalformedException((int) start, "interface description block too short");
                    }
                    ngLinktypes.add(Short.toUnsignedInt(b.getShort(0)));
                    ngTsresol.add(tsresol(b));
                }
                case PCAPNG_EPB -> {
                    if (body.length < 20) {
                        throw new MalformedException((int) start, "enhanced packet block too short");
                    }
                    int iface = b.getInt(0);
                    if (iface < 0 || iface >= ngLinktypes.size()) {
                        throw new MalformedException(
                                (int) start, "packet names interface " + iface + " of " + ngLinktypes.size());
                    }
                    long ts = (Integer.toUnsignedLong(b.getInt(4)) << 32) | Integer.toUnsignedLong(b.getInt(8));
                    int cap = b.getInt(12);
                    int orig = b.getInt(16);
                    if (cap < 0 || cap > body.length - 20) {
                        throw new MalformedException(
                                (int) start, "captured length " + Integer.toUnsignedString(cap) + " exceeds its block");
                    }
                    byte[] data = new byte[cap];
                    b.get(20, data);
                    index++;
                    long nanosTs = toNanos(ts, ngTsresol.get(iface));
                    return new Record(index, start, ngLinktypes.get(iface), nanosTs, orig, data);
                }
                case PCAPNG_SPB -> {
                    if (ngLinktypes.isEmpty() || body.length < 4) {
                        throw new MalformedException((int) start, "simple packet block without an interface");
                    }
                    int orig = b.getInt(0);
                    int cap = Math.min(Math.max(orig, 0), body.length - 4);
                    byte[] data = new byte[cap];
                    b.get(4, data);
                    index++;
                    return new Record(index, start, ngLinktypes.get(0), 0, orig, data);
                }
                default -> {
                    // Statistics, name resolution, custom blocks: not packets.
                }
            }
        }
    }

    private static final int TSRESOL_MICROS = 6;

    /** The IDB's if_tsresol option (code 9), or 6 (microseconds) when it has none. */
    private static int tsresol(ByteBuffer b) {
        int pos = 8;
        while (pos + 4 <= b.limit()) {
            int code = Short.toUnsignedInt(b.getShort(pos));
            int len = Short.toUnsignedInt(b.getShort(pos + 2));
            if (code == 0) {
                break;
            }
            if (code == 9 && len >= 1 && pos + 5 <= b.limit()) {
                return Byte.toUnsignedInt(b.get(pos + 4));
            }
            pos += 4 + ((len + 3) & ~3);
        }
        return TSRESOL_MICROS;
    }

    /**
     * An EPB timestamp in if_tsresol units as nanoseconds. The pcapng spec: with bit 7 clear the
     * unit is 10^-n s, with it set 2^-n s. Not just 6 and 9: tools write milliseconds (3),
     * picoseconds (12) and binary fractions, and reading those as microseconds is off by powers of
     * ten (tshark converts all of them).
     */
    static long toNanos(long ts, int tsresol) {
        int n = tsresol & 0x7f;
        if ((tsresol & 0x80) == 0) {
            if (n <= 9) {
                return ts * POW10[9 - n];
            }
            return n - 9 < POW10.length ? Long.divideUnsigned(ts, POW10[n - 9]) : 0;
        }
        if (n >= 64) {
            return 0;
        }
        BigInteger nanos = new BigInteger(Long.toUnsignedString(ts))
                .multiply(BigInteger.valueOf(1_000_000_000L))
                .shiftRight(n);
        return nanos.longValue();
    }

    private static final long[] POW10 = {
            1L, 10L, 100L, 1_000L, 10_000L, 100_000L, 1_000_000L, 10_000_000L, 100_000_000L, 1_000_000_000L,
            10_000_000_000L, 100_000_000_000L, 1_000_000_000_000L, 10_000_000_000_000L, 100_000_000_000_000L,
            1_000_000_000_000_000L, 10_000_000_000_000_000L, 100_000_000_000_000_000L, 1_000_000_000_000_000_000L};

    private void checkBlockLength(int total, long start, int min) throws MalformedException {
        if (total < min || total % 4 != 0 || total > MAX_RECORD + 64) {
            throw new MalformedException((int) Math.min(start, Integer.MAX_VALUE),
                    "pcapng block length " + Integer.toUnsignedString(total) + " is invalid");
        }
    }

    private byte[] readUpTo(int n) throws IOException, MalformedException {
        byte[] b = new byte[n];
        int got = in.readNBytes(b, 0, n);
        offset += got;
        if (got == 0) {
            return null;
        }
        if (got < n) {
            throw new MalformedException((int) Math.min(offset, Integer.MAX_VALUE), "file ends inside a record header");
        }
        return b;
    }

    private byte[] readExactly(int n, String what) throws IOException, MalformedException {
        byte[] b = new byte[n];
        int got = in.readNBytes(b, 0, n);
        offset += got;
        if (got < n) {
            throw new MalformedException((int) Math.min(offset, Integer.MAX_VALUE),
                    "file ends inside the " + what + " (" + got + " of " + n + " bytes)");
        }
        return b;
    }

    private void skip(long n) throws IOException, MalformedException {
        try {
            in.skipNBytes(n);
        } catch (EOFException e) {
            throw new MalformedException(
                    (int) Math.min(offset, Integer.MAX_VALUE), "file ends inside a pcapng section header");
        }
        offset += n;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
