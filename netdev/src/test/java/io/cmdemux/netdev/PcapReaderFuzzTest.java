package io.cmdemux.netdev;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/**
 * Fuzzing of PcapReader on corrupted pcap and pcapng files: truncation at every offset, bogus
 * block, record and captured lengths, random bytes. Every file must read as records until a clean
 * end or a {@link MalformedException} whose offset lies within the file, without allocating more
 * than a bounded amount whatever a length field claims.
 */
class PcapReaderFuzzTest {
    /**
     * What one read of a small file may allocate: the reader's 64 KiB buffer, at most one body of
     * PcapReader.MAX_RECORD (plus the pcapng block overhead) before the file turns out to be short,
     * and change. A length of 2^31 would blow far past it (or throw NegativeArraySize / OOM).
     */
    private static final long MAX_ALLOCATION_PER_READ = 2L << 20;

    /** A seed file and where its length fields are, so that corruption can aim at them. */
    record Seed(String name, byte[] bytes, List<int[]> lengthFields) {}

    private static List<Seed> seeds;

    static synchronized List<Seed> seeds() {
        if (seeds == null) {
            try {
                seeds = List.of(classicLittleEndianMicros(), classicBigEndianNanos(), pcapngTwoSections());
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        }
        return seeds;
    }

    private static List<byte[]> payloads() {
        List<byte[]> p = new ArrayList<>();
        p.add(Rtnl.getLinkDump(1).toBytes());
        p.add(new NlRequest(NlMessage.NLMSG_DONE, NlMessage.NLM_F_MULTI, 1).header(new byte[4]).toBytes());
        p.add(new byte[] {1, 2, 3}); // an odd length, so that pcapng padding is exercised
        return p;
    }

    /** Written by our PcapWriter: 24-byte header, then 16-byte record headers (incl_len at +8, orig_len at +12). */
    private static Seed classicLittleEndianMicros() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        List<int[]> fields = new ArrayList<>();
        try (PcapWriter w = new PcapWriter(out, PcapWriter.LINKTYPE_NETLINK)) {
            int pos = 24;
            for (byte[] p : payloads()) {
                w.writeNetlink(1_700_000_000_000_000L, 0, p);
                fields.add(new int[] {pos + 8, 4});
                fields.add(new int[] {pos + 12, 4});
                pos += 16 + PcapWriter.NETLINK_PSEUDO_HEADER + p.length;
            }
        }
        return new Seed("pcap-le-us", out.toByteArray(), fields);
    }

    /** Hand-built big-endian nanosecond pcap (magic a1b23c4d). */
    private static Seed classicBigEndianNanos() {
        ByteBuffer b = ByteBuffer.allocate(4096).order(ByteOrder.BIG_ENDIAN);
        List<int[]> fields = new ArrayList<>();
        b.putInt(0xa1b23c4d)
                .putShort((short) 2)
                .putShort((short) 4)
                .putInt(0)
                .putInt(0)
                .putInt(65535)
                .putInt(PcapWriter.LINKTYPE_RAW);
        for (byte[] p : payloads()) {
            int at = b.position();
            b.putInt(1).putInt(999_999_999).putInt(p.length).putInt(p.length + 10).put(p);
            fields.add(new int[] {at + 8, 4});
            fields.add(new int[] {at + 12, 4});
        }
        return new Seed("pcap-be-ns", Arrays.copyOf(b.array(), b.position()), fields);
    }

    /**
     * pcapng: a little-endian section (SHB, IDB with if_tsresol=9, two EPBs, an SPB, an unknown
     * block) followed by a big-endian section (SHB, IDB, EPB).
     */
    private static Seed pcapngTwoSections() {
        ByteBuffer b = ByteBuffer.allocate(8192);
        List<int[]> fields = new ArrayList<>();
        for (ByteOrder order : new ByteOrder[] {ByteOrder.LITTLE_ENDIAN, ByteOrder.BIG_ENDIAN}) {
            b.order(order);
            // SHB: type, length, byte-order magic, version 1.0, section length -1, no options, length.
            block(b, fields, 0x0A0D0D0A,
                    body -> body.putInt(0x1A2B3C4D)
                            .putShort((short) 1)
                            .putShort((short) 0)
                            .putLong(-1));
            // IDB: linktype, reserved, snaplen, options if_tsresol(9)=9, opt_endofopt.
            block(b, fields, 1, body -> {
                body.putShort((short) PcapWriter.LINKTYPE_NETLINK).putShort((short) 0).putInt(0);
                fields.add(new int[] {body.position() + 2, 2}); // the option's length
                body.putShort((short) 9).putShort((short) 1).put((byte) 9).put(new byte[3]).putInt(0);
            });
            for (byte[] p : payloads()) {
                // EPB: interface, timestamp high/low, captured length, original length, data padded, no options.
                block(b, fields, 6, body -> {
                    body.putInt(0).putInt(0x0005f000).putInt(12345);
                    fields.add(new int[] {body.position(), 4});
                    body.putInt(p.length).putInt(p.length).put(p);
                    body.position(NlMessage.align(body.position()));
                });
                if (order == ByteOrder.BIG_ENDIAN) {
                    break;
                }
            }
            if (order == ByteOrder.LITTLE_ENDIAN) {
                // SPB: original length, data padded.
                block(b, fields, 3, body -> {
                    fields.add(new int[] {body.position(), 4});
                    body.putInt(5).put(new byte[] {9, 8, 7, 6, 5});
                    body.position(NlMessage.align(body.position()));
                });
                block(b, fields, 0x00000BAD, body -> body.putInt(0xdeadbeef));
            }
        }
        return new Seed("pcapng-le-be", Arrays.copyOf(b.array(), b.position()), fields);
    }

    private interface Body {
        void write(ByteBuffer b);
    }

    /** One pcapng block: type, total length, body, total length again; records both length fields. */
    private static void block(ByteBuffer b, List<int[]> fields, int type, Body body) {
        int start = b.position();
        b.putInt(type).putInt(0);
        body.write(b);
        int total = b.position() + 4 - start;
        b.putInt(start + 4, total).putInt(total);
        fields.add(new int[] {start + 4, 4});
        fields.add(new int[] {start + total - 4, 4});
    }

    // ---------------------------------------------------------------- oracle

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    /**
     * Reads the whole file; returns the number of records, or -1 after a MalformedException.
     * Allocation is measured around the reader's own calls only, after one warm-up read, so that
     * class loading and the assertions do not count.
     */
    static int readAll(byte[] input) {
        warmUp();
        List<PcapReader.Record> records = new ArrayList<>();
        MalformedException failure = null;
        long before = THREADS.getCurrentThreadAllocatedBytes();
        try (PcapReader r = new PcapReader(new ByteArrayInputStream(input))) {
            PcapReader.Record rec;
            // Each record or block takes at least 12 bytes of the file, so more records than that
            // means the reader is not advancing; stop and fail below.
            while (records.size() <= input.length / 12 && (rec = r.next()) != null) {
                records.add(rec);
            }
        } catch (MalformedException e) {
            failure = e;
        } catch (IOException e) {
            throw new AssertionError("a byte array cannot fail to read; this IOException escaped the reader", e);
        }
        long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
        assertThat(allocated)
                .as("bytes allocated reading a " + input.length + "-byte file")
                .isLessThan(MAX_ALLOCATION_PER_READ);
        assertThat(records.size())
                .as("records from a " + input.length + "-byte file")
                .isLessThanOrEqualTo(input.length / 12);
        for (int i = 0; i < records.size(); i++) {
            PcapReader.Record rec = records.get(i);
            assertThat(rec.index()).isEqualTo(i + 1);
            assertThat(rec.fileOffset()).isBetween(0L, (long) input.length - 12);
            assertThat(rec.data().length).isLessThanOrEqualTo(Math.min(input.length, PcapReader.MAX_RECORD));
        }
        if (failure != null) {
            assertThat(failure.offset()).as("offset of \"" + failure.getMessage() + "\"").isBetween(0, input.length);
            return -1;
        }
        return records.size();
    }

    private static boolean warm;

    private static void warmUp() {
        if (warm) {
            return;
        }
        warm = true;
        for (Seed s : seeds()) {
            try (PcapReader r = new PcapReader(new ByteArrayInputStream(s.bytes()))) {
                while (r.next() != null) {
                    // load and initialise everything a read touches
                }
            } catch (IOException | MalformedException e) {
                throw new AssertionError("seed " + s.name() + " does not read", e);
            }
        }
        try {
            new PcapReader(new ByteArrayInputStream(new byte[3]));
        } catch (IOException | MalformedException e) {
            // the error path's classes are loaded now too
        }
    }

    // ----------------------------------------------------------------- tests

    @Test
    void everySeedReadsToItsEndWithEveryRecord() {
        assertThat(readAll(seeds().get(0).bytes())).isEqualTo(3);
        assertThat(readAll(seeds().get(1).bytes())).isEqualTo(3);
        assertThat(readAll(seeds().get(2).bytes())).isEqualTo(3 + 1 + 1); // LE: 3 EPB + SPB; BE: 1 EPB
    }

    @Test
    void truncatingEverySeedAtEveryOffsetGivesRecordsThenCleanEndOrMalformed() {
        for (Seed s : seeds()) {
            for (int cut = 0; cut <= s.bytes().length; cut++) {
                readAll(Arrays.copyOf(s.bytes(), cut));
            }
        }
    }

    @Test
    void recordClaimingTwoGigabytesIsMalformedWithoutAllocatingThem() {
        for (int claim : new int[] {Integer.MAX_VALUE, -1, Integer.MIN_VALUE, PcapReader.MAX_RECORD + 1}) {
            byte[] b = seeds().get(0).bytes().clone();
            ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putInt(24 + 8, claim);
            assertThat(readAll(b)).as("incl_len " + Integer.toUnsignedString(claim)).isEqualTo(-1);
            assertThatThrownBy(() -> {
                        try (PcapReader r = new PcapReader(new ByteArrayInputStream(b))) {
                            r.next();
                        }
                    })
                    .isInstanceOf(MalformedException.class)
                    .extracting(e -> ((MalformedException) e).offset())
                    .isEqualTo(24 + 8);
        }
    }

    @Property(tries = 3000)
    void corruptingAnyLengthFieldGivesRecordsOrMalformed(
            @ForAll("seedIndex") int seed,
            @ForAll @IntRange(min = 0, max = 10_000) int which,
            @ForAll("lengths") int value) {
        Seed s = seeds().get(seed);
        byte[] b = s.bytes().clone();
        int[] f = s.lengthFields().get(which % s.lengthFields().size());
        ByteBuffer bb = ByteBuffer.wrap(b).order(orderAt(s, f[0]));
        if (f[1] == 4) {
            bb.putInt(f[0], value);
        } else {
            bb.putShort(f[0], (short) value);
        }
        readAll(b);
    }

    /** The seeds' byte order at a position: the pcapng seed turns big-endian in its second section. */
    private static ByteOrder orderAt(Seed s, int pos) {
        if (s.name().equals("pcap-be-ns")) {
            return ByteOrder.BIG_ENDIAN;
        }
        if (s.name().equals("pcapng-le-be")) {
            int secondShb = indexOfBigEndianShb(s.bytes());
            return pos >= secondShb ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
        }
        return ByteOrder.LITTLE_ENDIAN;
    }

    private static int indexOfBigEndianShb(byte[] b) {
        for (int i = 4; i + 12 <= b.length; i += 4) {
            if (b[i] == 0x0A
                    && b[i + 1] == 0x0D
                    && b[i + 2] == 0x0D
                    && b[i + 3] == 0x0A
                    && b[i + 8] == 0x1A
                    && b[i + 9] == 0x2B) {
                return i;
            }
        }
        return b.length;
    }

    @Property(tries = 3000)
    void flippingRandomBytesGivesRecordsOrMalformed(@ForAll("seedIndex") int seed,
            @ForAll @Size(min = 1, max = 8) List<@IntRange(min = 0, max = 100_000) Integer> positions,
            @ForAll @Size(min = 8, max = 8) List<Byte> values) {
        byte[] b = seeds().get(seed).bytes().clone();
        for (int i = 0; i < positions.size(); i++) {
            b[positions.get(i) % b.length] = values.get(i);
        }
        readAll(b);
    }

    @Property(tries = 2000)
    void randomBytesBehindAValidMagicGiveRecordsOrMalformed(@ForAll("magics") int magic, @ForAll boolean bigEndian,
            @ForAll @Size(max = 400) byte[] rest) {
        ByteBuffer b =
                ByteBuffer.allocate(4 + rest.length).order(bigEndian ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
        b.putInt(magic).put(rest);
        readAll(b.array());
    }

    @Property(tries = 1000)
    void randomBytesGiveRecordsOrMalformed(@ForAll @Size(max = 300) byte[] input) {
        readAll(input);
    }

    @Provide
    Arbitrary<Integer> seedIndex() {
        return Arbitraries.integers().between(0, seeds().size() - 1);
    }

    @Provide
    Arbitrary<Integer> lengths() {
        return Arbitraries.oneOf(
                Arbitraries.of(0, 1, 3, 4, 8, 11, 12, 13, 16, 20, 27, 28, 0xffff, PcapReader.MAX_RECORD,
                        PcapReader.MAX_RECORD + 1, PcapReader.MAX_RECORD + 64, PcapReader.MAX_RECORD + 68,
                        Integer.MAX_VALUE, Integer.MIN_VALUE, -1, -12),
                Arbitraries.integers().between(0, 600), Arbitraries.integers());
    }

    @Provide
    Arbitrary<Integer> magics() {
        return Arbitraries.of(0xa1b2c3d4, 0xa1b23c4d, 0x0A0D0D0A);
    }
}
