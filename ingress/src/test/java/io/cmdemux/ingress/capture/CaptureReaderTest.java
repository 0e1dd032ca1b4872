package io.cmdemux.ingress.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cmdemux.ingress.oracle.ExternalTool;
import io.cmdemux.ingress.wire.CmMessage;
import io.cmdemux.ingress.wire.CmSamples;
import io.cmdemux.ingress.wire.FrameResult;
import io.cmdemux.ingress.wire.L2Header;
import io.cmdemux.ingress.wire.Mad;
import io.cmdemux.ingress.wire.RoceFrameBuilder;
import io.cmdemux.ingress.wire.Vlan;
import io.cmdemux.netdev.MalformedException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@Tag("tshark")
class CaptureReaderTest {
    @TempDir
    Path dir;

    static List<CmMessage> messages() throws Exception {
        return CmSamples.all(InetAddress.getByName("10.0.0.2"), InetAddress.getByName("10.0.0.5"));
    }

    static byte[] frame(CmMessage m, L2Header l2) throws Exception {
        InetAddress s = InetAddress.getByName("10.0.0.2");
        InetAddress d = InetAddress.getByName("10.0.0.5");
        return RoceFrameBuilder.cmFrame(l2, CmSamples.l3(s, d), 0xC000, 0xFFFF, 1, Mad.of(m, 1));
    }

    static List<CapturedFrame> readAll(Path p) throws Exception {
        List<CapturedFrame> out = new ArrayList<>();
        try (InputStream in = Files.newInputStream(p); CaptureReader r = new CaptureReader(in)) {
            for (CapturedFrame f = r.next(); f != null; f = r.next()) {
                out.add(f);
            }
        }
        return out;
    }

    @Test
    void readsPcapngThatTsharkWroteFromOurPcap() throws Exception {
        Path pcap = dir.resolve("a.pcap");
        try (OutputStream out = Files.newOutputStream(pcap); CaptureWriter w = CaptureWriter.ethernet(out)) {
            for (CmMessage m : messages()) {
                w.write(frame(m, CmSamples.l2(Vlan.of(12))));
            }
        }
        Path ng = dir.resolve("a.pcapng");
        Path tshark = ExternalTool.require("tshark", "tshark");
        ExternalTool.run(List.of(tshark.toString(), "-r", pcap.toString(), "-F", "pcapng", "-w", ng.toString()));
        List<CapturedFrame> frames = readAll(ng);
        assertThat(frames).hasSize(messages().size());
        for (int i = 0; i < frames.size(); i++) {
            CapturedFrame f = frames.get(i);
            assertThat(f.index()).isEqualTo(i + 1);
            assertThat(f.result()).isInstanceOf(FrameResult.Decoded.class);
            assertThat(((FrameResult.Decoded) f.result()).frame().mad().message()).isEqualTo(messages().get(i));
        }
    }

    @Test
    void readsRawIpCaptures() throws Exception {
        Path pcap = dir.resolve("raw.pcap");
        try (OutputStream out = Files.newOutputStream(pcap); CaptureWriter w = CaptureWriter.rawIp(out)) {
            w.write(frame(CmSamples.rtu(), null));
        }
        List<CapturedFrame> frames = readAll(pcap);
        assertThat(frames).hasSize(1);
        FrameResult.Decoded d = (FrameResult.Decoded) frames.get(0).result();
        assertThat(d.frame().l2()).isNull();
        assertThat(d.frame().mad().message()).isEqualTo(CmSamples.rtu());
    }

    @Test
    void unknownLinkTypeIsAFrameFailure() {
        assertThat(CaptureReader.decode(147, new byte[10])).isInstanceOf(FrameResult.Failed.class);
    }

    /** A classic little-endian pcap header (libpcap format: magic, 2.4, zone, sigfigs, snaplen, linktype). */
    static ByteBuffer pcapHeader(int extra) {
        ByteBuffer b = ByteBuffer.allocate(24 + extra).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0xa1b2c3d4).putShort((short) 2).putShort((short) 4).putInt(0).putInt(0).putInt(65535).putInt(1);
        return b;
    }

    static CaptureReader reader(byte[] file) throws Exception {
        return new CaptureReader(new ByteArrayInputStream(file));
    }

    @Test
    void bogusRecordLengthsAreTypedErrorsWithTheFileOffset() throws Exception {
        for (int bogus : new int[] {0x7fffffff, -1, 262145}) {
            ByteBuffer b = pcapHeader(16);
            b.putInt(0).putInt(0).putInt(bogus).putInt(60);
            try (CaptureReader r = reader(b.array())) {
                assertThatThrownBy(r::next).isInstanceOf(MalformedException.class)
                        .satisfies(e -> assertThat(((MalformedException) e).offset()).isEqualTo(24 + 8))
                        .hasMessageContaining("captured bytes");
            }
        }
    }

    @Test
    void recordLongerThanTheRestOfTheFileIsATypedError() throws Exception {
        ByteBuffer b = pcapHeader(16 + 10);
        b.putInt(0).putInt(0).putInt(326).putInt(326);
        try (CaptureReader r = reader(b.array())) {
            assertThatThrownBy(r::next)
                    .isInstanceOf(MalformedException.class)
                    .hasMessageContaining("file ends inside the record 1");
        }
    }

    @Test
    void tinyRecordsDecodeAsFailuresNotErrors() throws Exception {
        ByteBuffer b = pcapHeader(16 + 3);
        b.putInt(0).putInt(0).putInt(3).putInt(3).put(new byte[] {1, 2, 3});
        try (CaptureReader r = reader(b.array())) {
            CapturedFrame f = r.next();
            assertThat(f.result()).isInstanceOf(FrameResult.Failed.class);
            assertThat(r.next()).isNull();
        }
    }

    @Test
    void notACaptureFileIsATypedError() {
        assertThatThrownBy(() -> reader("hello, world, this is text".getBytes()))
                .isInstanceOf(MalformedException.class);
    }

    @Test
    void streamsWithoutHoldingTheCapture() throws Exception {
        byte[] one = frame(CmSamples.req(InetAddress.getByName("10.0.0.2"), InetAddress.getByName("10.0.0.5")),
                CmSamples.l2(null));
        int count = 200_000;
        // Generated lazily: the reader gets ~65 MB it cannot hold at once without this test noticing the heap.
        InputStream lazy = new RepeatingPcap(pcapHeader(0).array(), one, count);
        long decoded = 0;
        long before = usedHeap();
        long peak = 0;
        try (CaptureReader r = new CaptureReader(lazy)) {
            for (CapturedFrame f = r.next(); f != null; f = r.next()) {
                if (f.result() instanceof FrameResult.Decoded) {
                    decoded++;
                }
                if (decoded % 50_000 == 0) {
                    peak = Math.max(peak, usedHeap() - before);
                }
            }
        }
        assertThat(decoded).isEqualTo(count);
        assertThat(peak).as("heap growth while streaming").isLessThan(48L << 20);
    }

    static long usedHeap() {
        Runtime rt = Runtime.getRuntime();
        System.gc();
        return rt.totalMemory() - rt.freeMemory();
    }

    /** A pcap header followed by the same record {@code count} times, produced on demand. */
    static final class RepeatingPcap extends InputStream {
        private final byte[] header;
        private final byte[] record;
        private final long total;
        private long pos;

        RepeatingPcap(byte[] header, byte[] frame, int count) {
            this.header = header;
            ByteBuffer r = ByteBuffer.allocate(16 + frame.length).order(ByteOrder.LITTLE_ENDIAN);
            r.putInt(0).putInt(0).putInt(frame.length).putInt(frame.length).put(frame);
            this.record = r.array();
            this.total = header.length + (long) record.length * count;
        }

        @Override
        public int read() {
            if (pos >= total) {
                return -1;
            }
            long p = pos++;
            return (p < header.length ? header[(int) p] : record[(int) ((p - header.length) % record.length)]) & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (pos >= total) {
                return -1;
            }
            int n = (int) Math.min(len, total - pos);
            for (int i = 0; i < n; i++) {
                b[off + i] = (byte) read();
            }
            return n;
        }
    }
}
