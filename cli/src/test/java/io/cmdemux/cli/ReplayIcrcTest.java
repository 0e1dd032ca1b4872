package io.cmdemux.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.observer.Prediction;
import io.cmdemux.ingress.capture.CaptureWriter;
import io.cmdemux.ingress.resolve.Decision;
import io.cmdemux.ingress.resolve.HostState;
import io.cmdemux.ingress.resolve.ResolverMode;
import io.cmdemux.netdev.PcapReader;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * replay decides on a frame only if its receiver would take it: a wrong or missing ICRC is a drop
 * before the CM (rxe_icrc_check), whatever the request says. The frames are the real REQ of the lab
 * fixture macvlan-one-pod, once as recorded and twice damaged.
 */
class ReplayIcrcTest {
    private static final Path FIXTURE = Path.of("..", "it", "fixtures", "lab", "macvlan-one-pod");

    @TempDir
    Path dir;

    /**
     * The frame as a sender that leaves the ICRC out writes it: 4 bytes shorter, with the IPv4 and UDP lengths (and
     * the IPv4 checksum) to match.
     */
    private static byte[] withoutIcrc(byte[] f) {
        byte[] m = Arrays.copyOf(f, f.length - 4);
        int ip = 14;
        int total = ((m[ip + 2] & 0xff) << 8 | (m[ip + 3] & 0xff)) - 4;
        m[ip + 2] = (byte) (total >> 8);
        m[ip + 3] = (byte) total;
        int udpLen = ((m[ip + 24] & 0xff) << 8 | (m[ip + 25] & 0xff)) - 4;
        m[ip + 24] = (byte) (udpLen >> 8);
        m[ip + 25] = (byte) udpLen;
        m[ip + 10] = 0;
        m[ip + 11] = 0;
        int sum = 0;
        for (int i = 0; i < 20; i += 2) {
            sum += (m[ip + i] & 0xff) << 8 | (m[ip + i + 1] & 0xff);
        }
        sum = (sum & 0xffff) + (sum >>> 16);
        sum = ~((sum & 0xffff) + (sum >>> 16)) & 0xffff;
        m[ip + 10] = (byte) (sum >> 8);
        m[ip + 11] = (byte) sum;
        return m;
    }

    @Test
    void aFrameWithAWrongOrMissingIcrcIsDroppedLikeTheReceiverDropsIt() throws Exception {
        byte[] req = null;
        try (InputStream in = Files.newInputStream(FIXTURE.resolve("cm.pcap")); PcapReader r = new PcapReader(in)) {
            for (PcapReader.Record rec = r.next(); rec != null && req == null; rec = r.next()) {
                // The first REQ: a CM MAD (class 0x07) with attribute 0x0010, after Ethernet, IPv4, UDP, BTH and DETH.
                byte[] f = rec.data();
                int mad = 14 + 20 + 8 + 12 + 8;
                if (f.length > mad + 18 && f[mad + 1] == 0x07 && f[mad + 16] == 0 && f[mad + 17] == 0x10) {
                    req = f;
                }
            }
        }
        assertThat(req).as("a REQ in %s", FIXTURE).isNotNull();
        byte[] wrong = req.clone();
        wrong[wrong.length - 1] ^= 0x5a;
        byte[] missing = withoutIcrc(req);
        Path pcap = dir.resolve("three.pcap");
        try (OutputStream o = Files.newOutputStream(pcap); CaptureWriter w = CaptureWriter.ethernet(o)) {
            w.write(req);
            w.write(wrong);
            w.write(missing);
        }
        ResolveOptions opts = new ResolveOptions();
        opts.lab = FIXTURE;
        HostState state = opts.load(new java.io.PrintWriter(System.err, true));
        List<ReplayCommand.Replayed> got = ReplayCommand.replay(state, pcap, null, 1, List.of(ResolverMode.KERNEL));
        assertThat(got).hasSize(3);
        assertThat(Prediction.label(state, got.get(0).decisions().get(0))).isEqualTo("deliver:pod1");
        for (ReplayCommand.Replayed bad : got.subList(1, 3)) {
            Decision d = bad.decisions().get(0);
            assertThat(d.outcome()).isEqualTo(Decision.Outcome.DROP);
            assertThat(d.drop()).isEqualTo(Decision.Drop.BAD_ICRC);
            assertThat(d.trace()).extracting(t -> t.kernelFunction()).containsExactly("rxe_icrc_check");
        }
        assertThat(got.get(2).decisions().get(0).dropReason()).contains("missing");
    }
}
