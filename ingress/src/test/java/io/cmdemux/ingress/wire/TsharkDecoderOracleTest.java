package io.cmdemux.ingress.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.ingress.capture.CaptureWriter;
import io.cmdemux.ingress.oracle.Tshark;
import java.io.OutputStream;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Our decoder against tshark (Debian package tshark) on MADs that our encoder never touched: random
 * bytes written straight into the MAD of a frame. Whatever tshark reads from them, we must read too.
 */
@Tag("tshark")
class TsharkDecoderOracleTest {
    static final CmAttribute[] TYPES = {CmAttribute.REQ, CmAttribute.REP, CmAttribute.REJ, CmAttribute.RTU, CmAttribute.DREQ, CmAttribute.DREP};

    @TempDir
    Path dir;

    @Test
    void ourDecoderReadsRandomMadsAsTsharkDoes() throws Exception {
        Random rnd = new Random(31337);
        InetAddress src = InetAddress.getByName("fd00:1::1");
        InetAddress dst = InetAddress.getByName("fd00:1::2");
        List<byte[]> frames = new ArrayList<>();
        for (int i = 0; i < 120; i++) {
            byte[] f = RoceFrameBuilder.cmFrame(CmSamples.l2(null), CmSamples.l3(src, dst), 0xC000, 0xFFFF, i, Mad.of(CmSamples.rtu(), i));
            int mad = Frames.ETH + Frames.IPV6 + Frames.UDP + Frames.BTH + Frames.DETH;
            byte[] data = new byte[CmMessage.DATA_SIZE];
            rnd.nextBytes(data);
            if (i % 3 == 0) {
                // An rdma_cm service ID, so that tshark also dissects the IP CM header.
                System.arraycopy(new byte[] {0, 0, 0, 0, 1, 6, (byte) rnd.nextInt(256), (byte) rnd.nextInt(256)}, 0, data, 8, 8);
            }
            System.arraycopy(data, 0, f, mad + MadHeader.SIZE, data.length);
            f[mad + 17] = (byte) TYPES[i % TYPES.length].id();
            Icrc.write(f, f.length - 4, Icrc.compute(f, Frames.ETH, Frames.IPV6, f.length - 4));
            frames.add(f);
        }
        Path pcap = dir.resolve("random.pcap");
        try (OutputStream o = Files.newOutputStream(pcap); CaptureWriter w = CaptureWriter.ethernet(o)) {
            for (byte[] f : frames) {
                w.write(f);
            }
        }
        List<String> fields = new ArrayList<>(TsharkOracleTest.REQ);
        fields.addAll(TsharkOracleTest.OTHERS);
        fields.add("infiniband.mad.attributeid");
        List<Map<String, String>> rows = Tshark.fields(pcap, fields);
        assertThat(rows).hasSize(frames.size());
        SoftAssertions soft = new SoftAssertions();
        for (int i = 0; i < frames.size(); i++) {
            FrameResult r = RoceDecoder.decodeEthernet(frames.get(i));
            soft.assertThat(r).as("frame %d", i + 1).isInstanceOf(FrameResult.Decoded.class);
            if (!(r instanceof FrameResult.Decoded d)) {
                continue;
            }
            soft.assertThat(d.frame().icrcValid()).isTrue();
            TsharkOracleTest.Check c = new TsharkOracleTest.Check(soft, rows.get(i));
            CmMessage m = d.frame().mad().message();
            c.num("infiniband.mad.attributeid", m.attribute().id());
            if (m instanceof CmReq req) {
                TsharkOracleTest.checkReqFields(c, req, false);
                if (tsharkDissectsIpCm(req.serviceId())) {
                    CmaHeader h = CmaHeader.decode(req.privateData());
                    c.num("infiniband.cm.req.ip_cm.majv", h.cmaVersion() >>> 4);
                    c.num("infiniband.cm.req.ip_cm.minv", h.cmaVersion() & 0xf);
                    c.num("infiniband.cm.req.ip_cm.ipv", h.ipVersion());
                    c.num("infiniband.cm.req.ip_cm.sport", h.srcPort());
                }
            } else {
                TsharkOracleTest.checkOther(c, m);
            }
        }
        soft.assertAll();
    }

    /** The service IDs whose REQ private data this test expects tshark to dissect as the IP CM header. */
    static boolean tsharkDissectsIpCm(long sid) {
        int ps = (int) (sid >>> 16) & 0xffff;
        return (sid >>> 32) == 0 && (ps == 0x0106 || ps == 0x0111 || ps == 0x0002);
    }
}
