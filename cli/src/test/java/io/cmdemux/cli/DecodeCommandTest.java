package io.cmdemux.cli;

import io.cmdemux.render.TopologyView;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.cmdemux.ingress.capture.CaptureWriter;
import io.cmdemux.ingress.oracle.Tshark;
import io.cmdemux.ingress.wire.CmCodec;
import io.cmdemux.ingress.wire.CmMessage;
import io.cmdemux.ingress.wire.CmSamples;
import io.cmdemux.ingress.wire.Frames;
import io.cmdemux.ingress.wire.Mad;
import io.cmdemux.ingress.wire.MadHeader;
import io.cmdemux.ingress.wire.RoceFrameBuilder;
import io.cmdemux.ingress.wire.Vlan;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * `cmdemux decode` end to end: the JSON for every frame agrees with tshark (Debian package tshark)
 * on the same capture; bad frames give error lines; exit codes follow the CLI conventions.
 */
@Tag("tshark")
class DecodeCommandTest {
    @TempDir
    Path dir;
    Path pcap;
    int goodFrames;
    static final int ETH = 14;

    record Run(int exit, String out, String err) {
        List<String> lines() {
            return out.isEmpty() ? List.of() : Arrays.asList(out.split("\n"));
        }
    }

    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = Main.run(new PrintWriter(out), new PrintWriter(err), args);
        return new Run(exit, out.toString(), err.toString());
    }

    @BeforeEach
    void capture() throws Exception {
        pcap = dir.resolve("cm.pcap");
        List<byte[]> frames = samples();
        goodFrames = frames.size();
        byte[] truncated = Arrays.copyOf(frames.get(0), 100);
        byte[] arp = frames.get(1).clone();
        arp[12] = 0x08;
        arp[13] = 0x06;
        frames.add(truncated);
        frames.add(arp);
        try (OutputStream o = Files.newOutputStream(pcap); CaptureWriter w = CaptureWriter.ethernet(o)) {
            for (byte[] f : frames) {
                w.write(f);
            }
        }
    }

    /**
     * Every message of CmSamples over IPv4 and IPv6, every other one tagged: distinct non-zero values in every field.
     */
    static List<byte[]> samples() throws Exception {
        List<byte[]> frames = new ArrayList<>();
        long tid = 0x77000;
        for (String[] pair : new String[][] {{"10.0.0.2", "10.0.0.5"}, {"fd00::2", "fd00::5"}}) {
            InetAddress s = InetAddress.getByName(pair[0]);
            InetAddress d = InetAddress.getByName(pair[1]);
            for (CmMessage m : CmSamples.all(s, d)) {
                frames.add(RoceFrameBuilder.cmFrame(CmSamples.l2(tid % 2 == 0 ? Vlan.of(300) : null),
                        CmSamples.l3(s, d), 0xC100, 0xFFFF, 1, Mad.of(m, tid++)));
            }
        }
        return frames;
    }

    @Test
    void jsonAgreesWithTsharkOnEveryFrame() throws Exception {
        Run r = run("decode", pcap.toString(), "--json");
        assertThat(r.exit()).isEqualTo(0);
        List<String> lines = r.lines();
        assertThat(lines).hasSize(goodFrames + 2);
        List<String> fields = List.of("frame.number", "ip.src", "ip.dst", "ipv6.src", "ipv6.dst", "vlan.id",
                "infiniband.bth.opcode",
                "infiniband.bth.p_key", "infiniband.bth.destqp", "infiniband.mad.mgmtclass", "infiniband.mad.method",
                "infiniband.mad.attributeid", "infiniband.mad.transactionid", "infiniband.cm.req",
                "infiniband.cm.req.serviceid",
                "infiniband.cm.req.serviceid.dport", "infiniband.cm.req.localqpn", "infiniband.cm.req.pkey",
                "infiniband.cm.req.localcaguid",
                "infiniband.cm.req.prim_localgid", "infiniband.cm.req.prim_remotegid",
                "infiniband.cm.req.prim_localgid_ipv4",
                "infiniband.cm.req.ip_cm.sport", "infiniband.cm.req.ip_cm.sip4", "infiniband.cm.req.ip_cm.dip4",
                "infiniband.cm.req.ip_cm.sip6",
                "infiniband.cm.req.ip_cm.dip6", "infiniband.cm.rej.localcommid", "infiniband.cm.rej.reason",
                "infiniband.cm.rep",
                "infiniband.cm.rep.localqpn", "infiniband.cm.rtu.localcommid", "infiniband.cm.dreq.localcommid",
                "infiniband.cm.drsp.localcommid");
        List<Map<String, String>> rows = Tshark.fields(pcap, fields);
        SoftAssertions soft = new SoftAssertions();
        for (int i = 0; i < goodFrames; i++) {
            JsonNode j = TopologyView.JSON.readTree(lines.get(i));
            Map<String, String> t = rows.get(i);
            soft.assertThat(j.get("frame").asLong()).isEqualTo(Long.parseLong(t.get("frame.number")));
            soft.assertThat(j.get("icrcValid").asBoolean()).isTrue();
            boolean v4 = !t.get("ip.src").isEmpty();
            addr(soft, j.at("/l3/src").asText(), t.get(v4 ? "ip.src" : "ipv6.src"));
            addr(soft, j.at("/l3/dst").asText(), t.get(v4 ? "ip.dst" : "ipv6.dst"));
            soft.assertThat(j.at("/l3/vlan").isNull() ? "" : j.at("/l3/vlan").asText()).isEqualTo(t.get("vlan.id"));
            soft.assertThat(j.at("/bth/opcode").asLong()).isEqualTo(Tshark.number(t.get("infiniband.bth.opcode")));
            soft.assertThat(j.at("/bth/pkey").asLong()).isEqualTo(Tshark.number(t.get("infiniband.bth.p_key")));
            soft.assertThat(j.at("/bth/destQp").asLong()).isEqualTo(Tshark.number(t.get("infiniband.bth.destqp")));
            soft.assertThat(j.at("/mad/mgmtClass").asLong())
                    .isEqualTo(Tshark.number(t.get("infiniband.mad.mgmtclass")));
            soft.assertThat(j.at("/mad/method").asLong()).isEqualTo(Tshark.number(t.get("infiniband.mad.method")));
            soft.assertThat(j.at("/mad/attributeId").asLong())
                    .isEqualTo(Tshark.number(t.get("infiniband.mad.attributeid")));
            soft.assertThat(Tshark.number(j.at("/mad/transactionId").asText()))
                    .isEqualTo(Tshark.number(t.get("infiniband.mad.transactionid")));
            JsonNode cm = j.get("cm");
            switch (cm.get("type").asText()) {
                case "REQ" -> {
                    hex(soft, cm, "localCommId", t.get("infiniband.cm.req"));
                    hex(soft, cm, "serviceId", t.get("infiniband.cm.req.serviceid"));
                    soft.assertThat(cm.get("port").asLong())
                            .isEqualTo(Tshark.number(t.get("infiniband.cm.req.serviceid.dport")));
                    soft.assertThat(cm.get("portSpace").asText()).isEqualTo("TCP");
                    hex(soft, cm, "localQpn", t.get("infiniband.cm.req.localqpn"));
                    hex(soft, cm, "pkey", t.get("infiniband.cm.req.pkey"));
                    hex(soft, cm, "localCaGuid", t.get("infiniband.cm.req.localcaguid"));
                    if (v4) {
                        addr(soft, cm.get("primaryLocalGid").asText().replace("::ffff:", ""),
                                t.get("infiniband.cm.req.prim_localgid_ipv4"));
                        addr(soft, cm.at("/ipCm/srcIp").asText(), t.get("infiniband.cm.req.ip_cm.sip4"));
                        addr(soft, cm.at("/ipCm/dstIp").asText(), t.get("infiniband.cm.req.ip_cm.dip4"));
                    } else {
                        addr(soft, cm.get("primaryLocalGid").asText(), t.get("infiniband.cm.req.prim_localgid"));
                        addr(soft, cm.get("primaryRemoteGid").asText(), t.get("infiniband.cm.req.prim_remotegid"));
                        addr(soft, cm.at("/ipCm/srcIp").asText(), t.get("infiniband.cm.req.ip_cm.sip6"));
                        addr(soft, cm.at("/ipCm/dstIp").asText(), t.get("infiniband.cm.req.ip_cm.dip6"));
                    }
                    soft.assertThat(cm.at("/ipCm/srcPort").asLong())
                            .isEqualTo(Tshark.number(t.get("infiniband.cm.req.ip_cm.sport")));
                    soft.assertThat(cm.at("/ipCm/version").asInt()).isEqualTo(0);
                    soft.assertThat(cm.at("/ipCm/ipVersion").asInt()).isEqualTo(v4 ? 4 : 6);
                }
                case "REJ" -> {
                    hex(soft, cm, "localCommId", t.get("infiniband.cm.rej.localcommid"));
                    soft.assertThat(cm.get("reason").asLong())
                            .isEqualTo(Tshark.number(t.get("infiniband.cm.rej.reason")));
                    soft.assertThat(cm.get("reasonName").asText()).isEqualTo("CONSUMER_DEFINED");
                }
                case "REP" -> {
                    hex(soft, cm, "localCommId", t.get("infiniband.cm.rep"));
                    hex(soft, cm, "localQpn", t.get("infiniband.cm.rep.localqpn"));
                }
                case "RTU" -> hex(soft, cm, "localCommId", t.get("infiniband.cm.rtu.localcommid"));
                case "DREQ" -> hex(soft, cm, "localCommId", t.get("infiniband.cm.dreq.localcommid"));
                case "DREP" -> hex(soft, cm, "localCommId", t.get("infiniband.cm.drsp.localcommid"));
                default -> soft.assertThat(cm.get("type").asText()).isIn("MRA", "SIDR_REQ", "SIDR_REP");
            }
        }
        soft.assertAll();
    }

    @Test
    void badFramesGiveAnErrorAndTheOffsetAndStillExitZero() throws Exception {
        Run r = run("decode", pcap.toString(), "--json");
        assertThat(r.exit()).isEqualTo(0);
        List<String> lines = r.lines();
        JsonNode truncated = TopologyView.JSON.readTree(lines.get(goodFrames));
        assertThat(truncated.get("frame").asInt()).isEqualTo(goodFrames + 1);
        // the tagged frame's IPv4 total length field
        assertThat(truncated.get("offset").asInt()).isEqualTo(ETH + 4 + 2);
        assertThat(truncated.get("error").asText()).contains("total length");
        assertThat(truncated.size()).isEqualTo(3);
        JsonNode arp = TopologyView.JSON.readTree(lines.get(goodFrames + 1));
        assertThat(arp.get("offset").asInt()).isEqualTo(12); // the ethertype
        assertThat(arp.get("error").asText()).isEqualTo("ethertype 0x0806 is not IPv4 or IPv6");
    }

    @Test
    void humanOutputIsOneLinePerFrameAndVerboseShowsEveryField() {
        Run r = run("decode", pcap.toString());
        assertThat(r.exit()).isEqualTo(0);
        assertThat(r.lines()).hasSize(goodFrames + 2);
        assertThat(r.lines().get(0)).contains("CM: ConnectRequest").contains("TCP 18515")
                .contains("10.0.0.2:48879 → 10.0.0.5:18515");
        assertThat(r.lines().get(2)).contains("CM: ConnectReject").contains("reason=28 (CONSUMER_DEFINED)");
        assertThat(r.lines().get(goodFrames)).contains("not a CM frame");
        Run v = run("decode", "-v", pcap.toString());
        // CmSamples' primary path: flow label 0xABCDE, packet rate 0x2A, SL 9 — the fields tshark misreads.
        assertThat(v.out()).contains("primaryFlowLabel: " + 0xABCDE).contains("primaryPacketRate: " + 0x2A)
                .contains("primarySl: 9")
                .contains("qkey: 0x80010000");
    }

    @Test
    void humanOutputShowsTheHeaderTheKernelDoesNotTakeAsIpAndThatAFrameWithoutIcrcIsDropped() throws Exception {
        InetAddress a = InetAddress.getByName("10.0.0.2");
        InetAddress b = InetAddress.getByName("10.0.0.5");
        byte[] plain = RoceFrameBuilder.cmFrame(CmSamples.l2(null), CmSamples.l3(a, b), 0xC100, 0xFFFF, 1,
                Mad.of(CmSamples.req(a, b), 1));
        int header = MadHeader.SIZE + 140; // the REQ's private data, where the rdma_cm header starts
        byte[] afIb = CmCodec.encode(Mad.of(CmSamples.req(a, b), 2));
        afIb[header + 1] = 0x00; // IP version 0
        byte[] refused = CmCodec.encode(Mad.of(CmSamples.req(a, b), 3));
        refused[header] = 0x01; // cma_version 1
        Path p = dir.resolve("headers.pcap");
        try (OutputStream o = Files.newOutputStream(p); CaptureWriter w = CaptureWriter.ethernet(o)) {
            w.write(Frames.withMad(plain, afIb));
            w.write(Frames.withMad(plain, refused));
            w.write(Frames.withoutIcrc(plain));
        }
        Run r = run("decode", p.toString());
        assertThat(r.lines()).hasSize(3);
        assertThat(r.lines().get(0)).contains("AF_IB (IP version 0 in the rdma_cm header) cma_hdr=[version 0x00,"
                + " IP version 0, ::a00:2:48879 → ::a00:5]");
        assertThat(r.lines().get(1)).contains("refused (cma_version 1 is not 0) cma_hdr=[version 0x01, IP version 4,"
                + " 10.0.0.2:48879 → 10.0.0.5]");
        assertThat(r.lines().get(2)).contains("ip=10.0.0.2:48879 → 10.0.0.5:18515").contains("[no ICRC")
                .endsWith("the receiver drops the frame]");
        assertThat(run("decode", "-v", p.toString()).out()).contains("reading: af_ib").contains("reading: refused")
                .contains("icrcCheck: missing");
    }

    @Test
    void exitCodesFollowTheCliConventions() throws Exception {
        assertThat(run("decode").exit()).isEqualTo(ExitCode.USAGE);
        Run missing = run("decode", dir.resolve("nope.pcap").toString());
        assertThat(missing.exit()).isEqualTo(ExitCode.ENVIRONMENT);
        assertThat(missing.err()).contains("no such file");
        Path text = Files.writeString(dir.resolve("text.pcap"), "this is not a capture file at all");
        assertThat(run("decode", text.toString()).exit()).isEqualTo(ExitCode.ENVIRONMENT);
    }

    @Test
    void damagedCaptureTailIsReportedAfterTheGoodFrames() throws Exception {
        byte[] whole = Files.readAllBytes(pcap);
        Path cut = dir.resolve("cut.pcap");
        Files.write(cut, Arrays.copyOf(whole, whole.length - 50));
        Run r = run("decode", cut.toString(), "--json");
        assertThat(r.exit()).isEqualTo(0);
        List<String> lines = r.lines();
        JsonNode last = TopologyView.JSON.readTree(lines.get(lines.size() - 1));
        assertThat(last.get("frame").asInt()).isEqualTo(goodFrames + 2);
        assertThat(last.get("error").asText()).startsWith("capture file: file ends inside the record");
        assertThat(r.err()).contains("capture ends in damage");
    }

    static void hex(SoftAssertions soft, JsonNode cm, String key, String tshark) {
        soft.assertThat(Tshark.number(cm.get(key).asText())).as(key).isEqualTo(Tshark.number(tshark));
    }

    static void addr(SoftAssertions soft, String ours, String tshark) throws Exception {
        soft.assertThat(InetAddress.getByName(ours)).isEqualTo(InetAddress.getByName(tshark));
    }
}
