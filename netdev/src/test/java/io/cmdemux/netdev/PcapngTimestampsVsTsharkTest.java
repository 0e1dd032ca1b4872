package io.cmdemux.netdev;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PcapReader's pcapng timestamps, lengths and interface link types against tshark (package
 * tshark), for every if_tsresol form: absent (microseconds), decimal 10^-9, 10^-3, 10^-12, and
 * binary 2^-10. Needs tshark and fails without it.
 */
class PcapngTimestampsVsTsharkTest {
    /** if_tsresol per interface; null leaves the option out. */
    private static final Integer[] TSRESOL = {null, 9, 3, 12, 0x80 | 10};
    /** One timestamp per interface, in that interface's units. */
    private static final long[] TS = {
            1_700_000_000_123_456L,                 // microseconds
            1_700_000_000_123_456_789L,             // nanoseconds
            1_700_000_000_123L,                     // milliseconds
            // Picoseconds: 64 bits hold only ~213 days of them. tshark 4.0 multiplies the sub-second
            // remainder by 10^9 in 64 bits, so it misreads remainders above ~18 ms (123.456789 s
            // comes out as 123.014067142); this one, 123.010 s, stays inside its range.
            123_010_000_000_000L,
            1_700_000_000L * 1024 + 512,            // 1/1024 s: .5 exactly
    };

    @Test
    void timestampsOfEveryTsresolFormMatchTshark(@TempDir Path dir) throws Exception {
        byte[] file = pcapng();
        Path f = dir.resolve("tsresol.pcapng");
        Files.write(f, file);
        List<String[]> theirs = new ArrayList<>();
        for (String line : tshark("-r", f.toString(), "-T", "fields", "-E", "separator=,", "-e", "frame.time_epoch",
                "-e", "frame.len", "-e", "frame.cap_len").split("\n")) {
            if (!line.isBlank()) {
                theirs.add(line.trim().split(","));
            }
        }
        List<PcapReader.Record> ours = new ArrayList<>();
        try (PcapReader r = new PcapReader(new java.io.ByteArrayInputStream(file))) {
            PcapReader.Record rec;
            while ((rec = r.next()) != null) {
                ours.add(rec);
            }
        }
        assertThat(ours).hasSameSizeAs(theirs).hasSize(TSRESOL.length);
        for (int i = 0; i < ours.size(); i++) {
            PcapReader.Record rec = ours.get(i);
            long tsharkNanos = new BigDecimal(theirs.get(i)[0]).movePointRight(9).longValueExact();
            assertThat(rec.timestampNanos())
                    .as("record " + (i + 1) + " (if_tsresol " + TSRESOL[i] + ")")
                    .isEqualTo(tsharkNanos);
            assertThat(rec.originalLength()).isEqualTo(Integer.parseInt(theirs.get(i)[1]));
            assertThat(rec.data().length).isEqualTo(Integer.parseInt(theirs.get(i)[2]));
        }
    }

    private static byte[] pcapng() {
        ByteBuffer b = ByteBuffer.allocate(4096).order(ByteOrder.LITTLE_ENDIAN);
        block(b, 0x0A0D0D0A, x -> x.putInt(0x1A2B3C4D).putShort((short) 1).putShort((short) 0).putLong(-1));
        for (Integer res : TSRESOL) {
            block(b, 1, x -> {
                x.putShort((short) PcapWriter.LINKTYPE_ETHERNET).putShort((short) 0).putInt(0);
                if (res != null) {
                    x.putShort((short) 9).putShort((short) 1).put((byte) res.intValue()).put(new byte[3]).putInt(0);
                }
            });
        }
        byte[] frame = new byte[60];
        for (int i = 0; i < TS.length; i++) {
            int iface = i;
            block(b, 6, x -> x.putInt(iface).putInt((int) (TS[iface] >>> 32)).putInt((int) TS[iface])
                    .putInt(frame.length).putInt(frame.length + 4).put(frame));
        }
        return java.util.Arrays.copyOf(b.array(), b.position());
    }

    private interface Body {
        void write(ByteBuffer b);
    }

    private static void block(ByteBuffer b, int type, Body body) {
        int start = b.position();
        b.putInt(type).putInt(0);
        body.write(b);
        b.position(NlMessage.align(b.position()));
        int total = b.position() + 4 - start;
        b.putInt(start + 4, total).putInt(total);
    }

    private static String tshark(String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("tshark"));
        cmd.addAll(List.of(args));
        Process p;
        try {
            p = new ProcessBuilder(cmd).start();
        } catch (IOException e) {
            throw new AssertionError(
                    "tshark could not be started (" + e.getMessage() + "); install the package tshark", e);
        }
        p.getOutputStream().close();
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> readAll(p.getErrorStream()));
        String out = readAll(p.getInputStream());
        try {
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("tshark did not finish within 120 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
        if (p.exitValue() != 0) {
            throw new AssertionError("tshark exited with " + p.exitValue() + ": " + err.join());
        }
        return out;
    }

    private static String readAll(InputStream in) {
        try (in) {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            in.transferTo(b);
            return b.toString(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
