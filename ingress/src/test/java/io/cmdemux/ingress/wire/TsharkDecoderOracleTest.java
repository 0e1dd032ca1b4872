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
 *
 * <p>When tshark 4.0 dissects a REQ's private data as the IP CM header (Annex A11), found by
 * experiment (REQs with every kind of service ID, IP version nibble and cma_version, dissected by
 * tshark; {@link #tsharkDissectsTheIpCmHeaderByServiceIdPrefixAlone} repeats it):
 * <ul>
 * <li>exactly when the service ID's top five bytes are 00 00 00 00 01, the prefix tshark shows as
 *     {@code infiniband.cm.req.serviceid.prefix}: every port space 0x01xx, so RDMA_PS_TCP (0x0106),
 *     RDMA_PS_UDP (0x0111), RDMA_PS_IB (0x013F) and codes rdma_cm has none for (0x0100, 0x010A, 0x01FF);
 *     not RDMA_PS_IPOIB (0x0002), nor 0x0006, 0x0206, 0xFF06, nor anything with a non-zero top 32
 *     bits (0x0000000101061D2F, a vendor's 0x0002C90300000001). Otherwise the 92 bytes are
 *     {@code infiniband.cm.req.private};</li>
 * <li>the IP version nibble chooses the address fields, never whether the header is dissected: 4 gives
 *     {@code sip4}/{@code dip4}, the last 4 bytes of each 16-byte address whatever the 12 before (an
 *     IPv6 address under nibble 4 shows as 0.0.0.2); any other nibble (0, 1, 5, 6, 15 tried) gives
 *     {@code sip6}/{@code dip6}, all 16 bytes (an IPv4 header under nibble 0 shows as ::10.0.0.2);</li>
 * <li>cma_version does not matter: {@code majv} and {@code minv} are its two nibbles (0x12 shows 1 and
 *     2, 0xFF 15 and 15) and every other field is there; {@code reserved} is the low nibble of the IP
 *     version byte.</li>
 * </ul>
 * The kernel reads the header in every port space (CmAddressing); tshark's rule is only about which
 * frames it shows the fields for.
 */
@Tag("tshark")
class TsharkDecoderOracleTest {
    static final CmAttribute[] TYPES = {
        CmAttribute.REQ, CmAttribute.REP, CmAttribute.REJ, CmAttribute.RTU, CmAttribute.DREQ, CmAttribute.DREP
    };

    @TempDir
    Path dir;

    @Test
    void ourDecoderReadsRandomMadsAsTsharkDoes() throws Exception {
        Random rnd = new Random(31337);
        InetAddress src = InetAddress.getByName("fd00:1::1");
        InetAddress dst = InetAddress.getByName("fd00:1::2");
        List<byte[]> frames = new ArrayList<>();
        for (int i = 0; i < 120; i++) {
            byte[] f = RoceFrameBuilder.cmFrame(
                    CmSamples.l2(null), CmSamples.l3(src, dst), 0xC000, 0xFFFF, i, Mad.of(CmSamples.rtu(), i));
            int mad = Frames.ETH + Frames.IPV6 + Frames.UDP + Frames.BTH + Frames.DETH;
            byte[] data = new byte[CmMessage.DATA_SIZE];
            rnd.nextBytes(data);
            if (i % 3 == 0) {
                // A service ID of each kind, so that tshark dissects the IP CM header of some and not of others.
                long sid = SERVICE_IDS[i / 3 % SERVICE_IDS.length] | rnd.nextInt(0x10000);
                Be.put64(data, ReqLayout.SERVICE_ID, sid);
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
        fields.add("infiniband.cm.req.ip_cm.reserved");
        fields.add("infiniband.cm.req.private");
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
                CmaHeader h = CmaHeader.ofRequest(req);
                if (tsharkDissectsIpCm(req.serviceId())) {
                    c.num("infiniband.cm.req.ip_cm.majv", h.cmaVersion() >>> 4);
                    c.num("infiniband.cm.req.ip_cm.minv", h.cmaVersion() & 0xf);
                    c.num("infiniband.cm.req.ip_cm.ipv", h.ipVersion());
                    c.num("infiniband.cm.req.ip_cm.reserved", h.reserved());
                    c.num("infiniband.cm.req.ip_cm.sport", h.srcPort());
                    if (h.ipVersion() == 4) {
                        c.addr("infiniband.cm.req.ip_cm.sip4", CmaHeader.asIpv4(h.srcAddr()));
                        c.addr("infiniband.cm.req.ip_cm.dip4", CmaHeader.asIpv4(h.dstAddr()));
                    } else {
                        c.addr("infiniband.cm.req.ip_cm.sip6", CmaHeader.asIpv6(h.srcAddr()));
                        c.addr("infiniband.cm.req.ip_cm.dip6", CmaHeader.asIpv6(h.dstAddr()));
                    }
                    c.bytes("infiniband.cm.req.ip_cm.private", CmaHeader.consumerData(req.privateData()).toByteArray());
                } else {
                    c.text("infiniband.cm.req.ip_cm.ipv", "");
                    c.bytes("infiniband.cm.req.private", req.privateData().toByteArray());
                }
            } else {
                TsharkOracleTest.checkOther(c, m);
            }
        }
        soft.assertAll();
    }

    /**
     * tshark 4.0's rule (see the class comment): the IP CM header is dissected when the service ID's top 5 bytes are 00
     * 00 00 00 01.
     */
    static boolean tsharkDissectsIpCm(long sid) {
        return (sid >>> 24) == 1;
    }

    /** A service ID of each kind, port 0: rdma_cm's four port spaces, other 0x01xx codes, codes outside, a vendor's. */
    static final long[] SERVICE_IDS = {
        0x0000000001060000L,
        0x0000000001110000L,
        0x00000000013F0000L,
        0x0000000000020000L,
        0x0000000001000000L,
        0x00000000010A0000L,
        0x0000000001FF0000L,
        0x0000000000060000L,
        0x0000000002060000L,
        0x00000000FF060000L,
        0x0000000101060000L,
        0x0002C90300000000L
    };

    /**
     * The experiment behind {@link #tsharkDissectsIpCm}, repeated: every kind of service ID with every kind of header.
     */
    @Test
    void tsharkDissectsTheIpCmHeaderByServiceIdPrefixAlone() throws Exception {
        InetAddress src = InetAddress.getByName("10.0.0.2");
        InetAddress dst = InetAddress.getByName("10.0.0.5");
        record Case(long sid, int cmaVersion, int ipVersionByte) {}
        List<Case> cases = new ArrayList<>();
        List<byte[]> frames = new ArrayList<>();
        for (long sidBase : SERVICE_IDS) {
            for (int ipVersionByte : new int[] {0x40, 0x60, 0x00, 0x10, 0x50, 0xF0, 0x4F}) {
                for (int cmaVersion : new int[] {0x00, 0x01, 0x12, 0xFF}) {
                    long sid = sidBase | 7471;
                    byte[] f = RoceFrameBuilder.cmFrame(CmSamples.l2(null), CmSamples.l3(src, dst), 0xC000, 0xFFFF, 1,
                            Mad.of(CmSamples.req(src, dst), 1));
                    int data = Frames.MAD_V4 + MadHeader.SIZE;
                    Be.put64(f, data + ReqLayout.SERVICE_ID, sid);
                    f[data + ReqLayout.PRIVATE_DATA] = (byte) cmaVersion;
                    f[data + ReqLayout.PRIVATE_DATA + 1] = (byte) ipVersionByte;
                    Icrc.write(f, f.length - 4, Icrc.compute(f, Frames.ETH, Frames.IPV4, f.length - 4));
                    cases.add(new Case(sid, cmaVersion, ipVersionByte));
                    frames.add(f);
                }
            }
        }
        Path pcap = dir.resolve("ip-cm-rule.pcap");
        try (OutputStream o = Files.newOutputStream(pcap); CaptureWriter w = CaptureWriter.ethernet(o)) {
            for (byte[] f : frames) {
                w.write(f);
            }
        }
        List<String> fields = List.of("infiniband.cm.req.serviceid.prefix", "infiniband.cm.req.ip_cm.majv",
                "infiniband.cm.req.ip_cm.minv", "infiniband.cm.req.ip_cm.ipv", "infiniband.cm.req.ip_cm.reserved",
                "infiniband.cm.req.ip_cm.sip4", "infiniband.cm.req.ip_cm.sip6", "infiniband.cm.req.private");
        List<Map<String, String>> rows = Tshark.fields(pcap, fields);
        assertThat(rows).hasSize(cases.size());
        SoftAssertions soft = new SoftAssertions();
        for (int i = 0; i < cases.size(); i++) {
            Case k = cases.get(i);
            Map<String, String> row = rows.get(i);
            String what = String.format("sid 0x%016x, cma_version 0x%02x, IP version byte 0x%02x",
                    k.sid(), k.cmaVersion(), k.ipVersionByte());
            boolean ipCm = tsharkDissectsIpCm(k.sid());
            soft.assertThat(!row.get("infiniband.cm.req.ip_cm.ipv").isEmpty())
                    .as("%s: IP CM header dissected", what)
                    .isEqualTo(ipCm);
            soft.assertThat(!row.get("infiniband.cm.req.private").isEmpty())
                    .as("%s: private data as such", what)
                    .isEqualTo(!ipCm);
            if (!ipCm) {
                continue;
            }
            soft.assertThat(row.get("infiniband.cm.req.serviceid.prefix")).as(what).isEqualTo("0000000001");
            soft.assertThat(Tshark.number(row.get("infiniband.cm.req.ip_cm.majv")))
                    .as(what)
                    .isEqualTo(k.cmaVersion() >>> 4);
            soft.assertThat(Tshark.number(row.get("infiniband.cm.req.ip_cm.minv")))
                    .as(what)
                    .isEqualTo(k.cmaVersion() & 0xf);
            soft.assertThat(Tshark.number(row.get("infiniband.cm.req.ip_cm.ipv")))
                    .as(what)
                    .isEqualTo(k.ipVersionByte() >>> 4);
            soft.assertThat(Tshark.number(row.get("infiniband.cm.req.ip_cm.reserved")))
                    .as(what)
                    .isEqualTo(k.ipVersionByte() & 0xf);
            boolean v4 = k.ipVersionByte() >>> 4 == 4;
            soft.assertThat(row.get("infiniband.cm.req.ip_cm.sip4")).as(what).isEqualTo(v4 ? "10.0.0.2" : "");
            soft.assertThat(row.get("infiniband.cm.req.ip_cm.sip6")).as(what).isEqualTo(v4 ? "" : "::10.0.0.2");
        }
        soft.assertAll();
    }
}
