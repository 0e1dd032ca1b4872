package io.cmdemux.ingress.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.ingress.capture.CaptureWriter;
import io.cmdemux.ingress.oracle.Tshark;
import java.io.OutputStream;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * tshark (Debian package tshark) is the oracle for the wire format. Every CM message type is encoded
 * over IPv4 and IPv6, untagged, with an 802.1Q tag, and as a bare IP packet (LINKTYPE_RAW); tshark's
 * dissection of each frame must give back the values we put in. Expected values are the test inputs.
 * tshark 4.0 misreads the flow label and packet rate and has no MRA/SIDR fields: those are checked
 * through {@code infiniband.mad.data} against the IBTA table in {@link CmLayoutTest}.
 */
@Tag("tshark")
class TsharkOracleTest {
    static final int UDP_SPORT = 0xC0DE;
    static final int PKEY = 0xFFFF;
    static final int PSN = 0x00ABCD;
    static final long TID_BASE = 0x0000_1234_0000_0000L;

    record Variant(String name, InetAddress src, InetAddress dst, Vlan vlan, boolean rawIp) {}

    record Sent(Variant variant, CmMessage message, long tid, byte[] frame) {
        String name() {
            return message.attribute() + " over " + variant.name;
        }
    }

    static final List<String> COMMON = List.of("vlan.id", "ip.src", "ip.dst", "ipv6.src", "ipv6.dst", "udp.srcport",
            "udp.dstport", "infiniband.bth.opcode", "infiniband.bth.p_key", "infiniband.bth.destqp",
            "infiniband.bth.psn", "infiniband.bth.m", "infiniband.deth.q_key", "infiniband.deth.srcqp",
            "infiniband.mad.baseversion", "infiniband.mad.mgmtclass", "infiniband.mad.classversion",
            "infiniband.mad.method", "infiniband.mad.status", "infiniband.mad.classspecific",
            "infiniband.mad.transactionid", "infiniband.mad.attributeid", "infiniband.mad.attributemodifier",
            "infiniband.mad.data");

    static final List<String> REQ = List.of("infiniband.cm.req", "infiniband.cm.req.serviceid",
            "infiniband.cm.req.serviceid.protocol", "infiniband.cm.req.serviceid.dport",
            "infiniband.cm.req.localcaguid", "infiniband.cm.req.localqkey", "infiniband.cm.req.localqpn",
            "infiniband.cm.req.responderres", "infiniband.cm.req.localeecn", "infiniband.cm.req.initdepth",
            "infiniband.cm.req.remoteeecn", "infiniband.cm.req.remoteresptout", "infiniband.cm.req.transpsvctype",
            "infiniband.cm.req.e2eflowctrl", "infiniband.cm.req.startpsn", "infiniband.cm.req.localresptout",
            "infiniband.cm.req.retrcount", "infiniband.cm.req.pkey", "infiniband.cm.req.pppmtu",
            "infiniband.cm.req.rdcexist", "infiniband.cm.req.rnrretrcount", "infiniband.cm.req.maxcmretr",
            "infiniband.cm.req.srq", "infiniband.cm.req.ext_transport", "infiniband.cm.req.prim_locallid",
            "infiniband.cm.req.prim_remotelid", "infiniband.cm.req.prim_localgid", "infiniband.cm.req.prim_remotegid",
            "infiniband.cm.req.prim_localgid_ipv4", "infiniband.cm.req.prim_remotegid_ipv4",
            "infiniband.cm.req.prim_tfcclass", "infiniband.cm.req.prim_hoplim", "infiniband.cm.req.prim_sl",
            "infiniband.cm.req.prim_subnetlocal", "infiniband.cm.req.prim_localacktout",
            "infiniband.cm.req.alt_locallid", "infiniband.cm.req.alt_remotelid", "infiniband.cm.req.alt_localgid",
            "infiniband.cm.req.alt_remotegid", "infiniband.cm.req.alt_tfcclass", "infiniband.cm.req.alt_hoplim",
            "infiniband.cm.req.alt_sl", "infiniband.cm.req.alt_subnetlocal", "infiniband.cm.req.alt_localacktout",
            "infiniband.cm.req.ip_cm.majv", "infiniband.cm.req.ip_cm.minv", "infiniband.cm.req.ip_cm.ipv",
            "infiniband.cm.req.ip_cm.sport", "infiniband.cm.req.ip_cm.sip4", "infiniband.cm.req.ip_cm.dip4",
            "infiniband.cm.req.ip_cm.sip6", "infiniband.cm.req.ip_cm.dip6", "infiniband.cm.req.ip_cm.private");

    static final List<String> OTHERS = List.of("infiniband.cm.rep", "infiniband.cm.rep.remotecommid",
            "infiniband.cm.rep.localqkey", "infiniband.cm.rep.localqpn", "infiniband.cm.rep.localeecn",
            "infiniband.cm.rep.startpsn", "infiniband.cm.rep.respres", "infiniband.cm.rep.initdepth",
            "infiniband.cm.rep.tgtackdelay", "infiniband.cm.rep.failoveracc", "infiniband.cm.rep.e2eflowctrl",
            "infiniband.cm.rep.rnrretrcount", "infiniband.cm.rep.srq", "infiniband.cm.rep.localcaguid",
            "infiniband.cm.rep.private", "infiniband.cm.rej.localcommid", "infiniband.cm.rej.remotecommid",
            "infiniband.cm.rej.msgrej", "infiniband.cm.rej.rejinfolen", "infiniband.cm.rej.reason",
            "infiniband.cm.rej.ari", "infiniband.cm.rej.private", "infiniband.cm.rtu.localcommid",
            "infiniband.cm.rtu.remotecommid", "infiniband.cm.rtu.private", "infiniband.cm.dreq.localcommid",
            "infiniband.cm.dreq.remotecommid", "infiniband.cm.req.remoteqpneecn", "infiniband.cm.dreq.private",
            "infiniband.cm.drsp.localcommid", "infiniband.cm.drsp.remotecommid", "infiniband.cm.drsp.private");

    @TempDir
    Path dir;

    static List<Variant> variants() throws Exception {
        InetAddress a4 = InetAddress.getByName("10.0.0.2");
        InetAddress b4 = InetAddress.getByName("10.0.0.5");
        InetAddress a6 = InetAddress.getByName("fd00:77::2");
        InetAddress b6 = InetAddress.getByName("fd00:77::5");
        return List.of(
                new Variant("IPv4", a4, b4, null, false),
                new Variant("IPv4 with VLAN 100", a4, b4, new Vlan(5, false, 100), false),
                new Variant("IPv6", a6, b6, null, false),
                new Variant("IPv6 with VLAN 4000", a6, b6, new Vlan(3, true, 4000), false),
                new Variant("raw IPv4", a4, b4, null, true),
                new Variant("raw IPv6", a6, b6, null, true));
    }

    @TestFactory
    Stream<DynamicTest> tsharkDecodesEveryMessageTypeAsWeEncodedIt() throws Exception {
        List<Sent> ethernet = new ArrayList<>();
        List<Sent> raw = new ArrayList<>();
        long tid = TID_BASE;
        for (Variant v : variants()) {
            for (CmMessage m : CmSamples.all(v.src, v.dst)) {
                L2Header l2 = v.rawIp ? null : CmSamples.l2(v.vlan);
                byte[] frame =
                        RoceFrameBuilder.cmFrame(l2, CmSamples.l3(v.src, v.dst), UDP_SPORT, PKEY, PSN, Mad.of(m, tid));
                (v.rawIp ? raw : ethernet).add(new Sent(v, m, tid, frame));
                tid++;
            }
        }
        List<String> fields = new ArrayList<>(COMMON);
        fields.addAll(REQ);
        fields.addAll(OTHERS);
        List<DynamicTest> tests = new ArrayList<>();
        tests.addAll(run(ethernet, "ethernet.pcap", false, fields));
        tests.addAll(run(raw, "raw.pcap", true, fields));
        return tests.stream();
    }

    private List<DynamicTest> run(List<Sent> sent, String file, boolean rawIp, List<String> fields) throws Exception {
        Path pcap = dir.resolve(file);
        try (OutputStream out = Files.newOutputStream(pcap);
                CaptureWriter w = rawIp ? CaptureWriter.rawIp(out) : CaptureWriter.ethernet(out)) {
            for (Sent s : sent) {
                w.write(s.frame);
            }
        }
        List<Map<String, String>> rows = Tshark.fields(pcap, fields);
        assertThat(rows).as("tshark rows for " + file).hasSize(sent.size());
        List<DynamicTest> tests = new ArrayList<>();
        for (int i = 0; i < sent.size(); i++) {
            Sent s = sent.get(i);
            Map<String, String> row = rows.get(i);
            tests.add(DynamicTest.dynamicTest(s.name(), () -> check(s, row)));
        }
        return tests;
    }

    static void check(Sent s, Map<String, String> row) throws Exception {
        SoftAssertions soft = new SoftAssertions();
        Check c = new Check(soft, row);
        Variant v = s.variant;
        boolean v4 = v.src.getAddress().length == 4;
        c.text("vlan.id", v.vlan == null ? "" : Integer.toString(v.vlan.vid()));
        c.addr(v4 ? "ip.src" : "ipv6.src", v.src);
        c.addr(v4 ? "ip.dst" : "ipv6.dst", v.dst);
        c.num("udp.srcport", UDP_SPORT);
        c.num("udp.dstport", 4791);
        c.num("infiniband.bth.opcode", 100);
        c.num("infiniband.bth.p_key", PKEY);
        c.num("infiniband.bth.destqp", 1);
        c.num("infiniband.bth.psn", PSN);
        c.num("infiniband.deth.q_key", 0x80010000L);
        c.num("infiniband.deth.srcqp", 1);
        c.num("infiniband.mad.baseversion", 1);
        c.num("infiniband.mad.mgmtclass", 7);
        c.num("infiniband.mad.classversion", 2);
        c.num("infiniband.mad.method", 3);
        c.num("infiniband.mad.status", 0);
        c.num("infiniband.mad.classspecific", 0);
        c.num("infiniband.mad.transactionid", s.tid);
        c.num("infiniband.mad.attributeid", s.message.attribute().id());
        c.num("infiniband.mad.attributemodifier", 0);
        byte[] ours = CmCodec.encode(Mad.of(s.message, s.tid));
        c.bytes("infiniband.mad.data", Arrays.copyOfRange(ours, MadHeader.SIZE, Mad.SIZE));
        CmMessage m = s.message;
        if (m instanceof CmReq r) {
            checkReq(c, r, v4);
        } else {
            checkOther(c, m);
        }
        // MRA, SIDR_REQ and SIDR_REP: tshark 4.0 has no fields; the MAD bytes above and CmLayoutTest cover them.
        soft.assertAll();
    }


    /** The REP, REJ, RTU, DREQ and DREP fields tshark decodes. */
    static void checkOther(Check c, CmMessage m) {
        if (m instanceof CmRep r) {
            c.num("infiniband.cm.rep", r.localCommId());
            c.num("infiniband.cm.rep.remotecommid", r.remoteCommId());
            c.num("infiniband.cm.rep.localqkey", r.localQkey());
            c.num("infiniband.cm.rep.localqpn", r.localQpn());
            c.num("infiniband.cm.rep.localeecn", r.localEecn());
            c.num("infiniband.cm.rep.startpsn", r.startingPsn());
            c.num("infiniband.cm.rep.respres", r.responderResources());
            c.num("infiniband.cm.rep.initdepth", r.initiatorDepth());
            c.num("infiniband.cm.rep.tgtackdelay", r.targetAckDelay());
            c.num("infiniband.cm.rep.failoveracc", r.failoverAccepted());
            c.num("infiniband.cm.rep.e2eflowctrl", r.endToEndFlowControl() ? 1 : 0);
            c.num("infiniband.cm.rep.rnrretrcount", r.rnrRetryCount());
            c.num("infiniband.cm.rep.srq", r.srq() ? 1 : 0);
            c.num("infiniband.cm.rep.localcaguid", r.localCaGuid());
            c.bytes("infiniband.cm.rep.private", r.privateData().toByteArray());
        } else if (m instanceof CmRej r) {
            c.num("infiniband.cm.rej.localcommid", r.localCommId());
            c.num("infiniband.cm.rej.remotecommid", r.remoteCommId());
            c.num("infiniband.cm.rej.msgrej", r.messageRejected());
            c.num("infiniband.cm.rej.rejinfolen", r.rejectedInfoLength());
            c.num("infiniband.cm.rej.reason", r.reason());
            c.bytes("infiniband.cm.rej.ari", r.ari().toByteArray());
            c.bytes("infiniband.cm.rej.private", r.privateData().toByteArray());
        } else if (m instanceof CmRtu r) {
            c.num("infiniband.cm.rtu.localcommid", r.localCommId());
            c.num("infiniband.cm.rtu.remotecommid", r.remoteCommId());
            c.bytes("infiniband.cm.rtu.private", r.privateData().toByteArray());
        } else if (m instanceof CmDreq r) {
            c.num("infiniband.cm.dreq.localcommid", r.localCommId());
            c.num("infiniband.cm.dreq.remotecommid", r.remoteCommId());
            c.num("infiniband.cm.req.remoteqpneecn", r.remoteQpnEecn());
            c.bytes("infiniband.cm.dreq.private", r.privateData().toByteArray());
        } else if (m instanceof CmDrep r) {
            c.num("infiniband.cm.drsp.localcommid", r.localCommId());
            c.num("infiniband.cm.drsp.remotecommid", r.remoteCommId());
            c.bytes("infiniband.cm.drsp.private", r.privateData().toByteArray());
        }
    }

    static void checkReq(Check c, CmReq r, boolean v4) throws Exception {
        checkReqFields(c, r, v4);
        c.num("infiniband.cm.req.serviceid.protocol", 0x06);
        c.num("infiniband.cm.req.serviceid.dport", 18515);
        CmaHeader h = CmaHeader.decode(r.privateData());
        c.num("infiniband.cm.req.ip_cm.majv", 0);
        c.num("infiniband.cm.req.ip_cm.minv", 0);
        c.num("infiniband.cm.req.ip_cm.ipv", v4 ? 4 : 6);
        c.num("infiniband.cm.req.ip_cm.sport", 48879);
        CmAddressing.Ip ip = (CmAddressing.Ip) CmAddressing.of(r);
        c.addr(v4 ? "infiniband.cm.req.ip_cm.sip4" : "infiniband.cm.req.ip_cm.sip6", ip.src());
        c.addr(v4 ? "infiniband.cm.req.ip_cm.dip4" : "infiniband.cm.req.ip_cm.dip6", ip.dst());
        c.bytes("infiniband.cm.req.ip_cm.private",
                r.privateData()
                        .slice(CmaHeader.SIZE, CmReq.PRIVATE_DATA_SIZE - CmaHeader.SIZE)
                        .toByteArray());
        c.soft.assertThat(h.srcPort()).isEqualTo(48879);
    }

    /** Every REQ field tshark decodes correctly (not the flow labels and packet rates), without the IP CM header. */
    static void checkReqFields(Check c, CmReq r, boolean v4) throws Exception {
        c.num("infiniband.cm.req", r.localCommId());
        c.num("infiniband.cm.req.serviceid", r.serviceId());
        c.num("infiniband.cm.req.localcaguid", r.localCaGuid());
        c.num("infiniband.cm.req.localqkey", r.localQkey());
        c.num("infiniband.cm.req.localqpn", r.localQpn());
        c.num("infiniband.cm.req.responderres", r.responderResources());
        c.num("infiniband.cm.req.localeecn", r.localEecn());
        c.num("infiniband.cm.req.initdepth", r.initiatorDepth());
        c.num("infiniband.cm.req.remoteeecn", r.remoteEecn());
        c.num("infiniband.cm.req.remoteresptout", r.remoteCmResponseTimeout());
        c.num("infiniband.cm.req.transpsvctype", r.transportServiceType());
        c.num("infiniband.cm.req.e2eflowctrl", r.endToEndFlowControl() ? 1 : 0);
        c.num("infiniband.cm.req.startpsn", r.startingPsn());
        c.num("infiniband.cm.req.localresptout", r.localCmResponseTimeout());
        c.num("infiniband.cm.req.retrcount", r.retryCount());
        c.num("infiniband.cm.req.pkey", r.pkey());
        c.num("infiniband.cm.req.pppmtu", r.pathMtu());
        c.num("infiniband.cm.req.rdcexist", r.rdcExists() ? 1 : 0);
        c.num("infiniband.cm.req.rnrretrcount", r.rnrRetryCount());
        c.num("infiniband.cm.req.maxcmretr", r.maxCmRetries());
        c.num("infiniband.cm.req.srq", r.srq() ? 1 : 0);
        c.num("infiniband.cm.req.ext_transport", r.extendedTransportType());
        CmPath p = r.primaryPath();
        c.num("infiniband.cm.req.prim_locallid", p.localLid());
        c.num("infiniband.cm.req.prim_remotelid", p.remoteLid());
        if (v4) {
            // tshark shows only the last 4 bytes of an IPv4-mapped GID
            c.addr("infiniband.cm.req.prim_localgid_ipv4", p.localGid().toInetAddress());
            c.addr("infiniband.cm.req.prim_remotegid_ipv4", p.remoteGid().toInetAddress());
        } else {
            c.addr("infiniband.cm.req.prim_localgid", p.localGid().toInetAddress());
            c.addr("infiniband.cm.req.prim_remotegid", p.remoteGid().toInetAddress());
        }
        c.num("infiniband.cm.req.prim_tfcclass", p.trafficClass());
        c.num("infiniband.cm.req.prim_hoplim", p.hopLimit());
        c.num("infiniband.cm.req.prim_sl", p.sl());
        c.num("infiniband.cm.req.prim_subnetlocal", p.subnetLocal() ? 1 : 0);
        c.num("infiniband.cm.req.prim_localacktout", p.localAckTimeout());
        CmPath a = r.alternatePath();
        c.num("infiniband.cm.req.alt_locallid", a.localLid());
        c.num("infiniband.cm.req.alt_remotelid", a.remoteLid());
        c.bytes("infiniband.cm.req.alt_localgid", a.localGid().bytes());
        c.bytes("infiniband.cm.req.alt_remotegid", a.remoteGid().bytes());
        c.num("infiniband.cm.req.alt_tfcclass", a.trafficClass());
        c.num("infiniband.cm.req.alt_hoplim", a.hopLimit());
        c.num("infiniband.cm.req.alt_sl", a.sl());
        c.num("infiniband.cm.req.alt_subnetlocal", a.subnetLocal() ? 1 : 0);
        c.num("infiniband.cm.req.alt_localacktout", a.localAckTimeout());
    }

    /** Compares one tshark field with the value we sent, collecting failures. */
    record Check(SoftAssertions soft, Map<String, String> row) {
        void num(String field, long expected) {
            String t = row.get(field);
            if (t == null || t.isEmpty()) {
                soft.fail("tshark gave no " + field);
                return;
            }
            soft.assertThat(Tshark.number(t)).as(field + " (tshark said " + t + ")").isEqualTo(expected);
        }

        void num(String field, int expectedUnsigned) {
            num(field, expectedUnsigned & 0xffffffffL);
        }

        void bytes(String field, byte[] expected) {
            String t = row.get(field);
            if (t == null || t.isEmpty()) {
                soft.fail("tshark gave no " + field);
                return;
            }
            soft.assertThat(Tshark.bytes(t)).as(field).isEqualTo(expected);
        }

        void addr(String field, InetAddress expected) throws Exception {
            String t = row.get(field);
            if (t == null || t.isEmpty()) {
                soft.fail("tshark gave no " + field);
                return;
            }
            soft.assertThat(InetAddress.getByName(t)).as(field).isEqualTo(expected);
        }

        void text(String field, String expected) {
            soft.assertThat(row.get(field)).as(field).isEqualTo(expected);
        }
    }
}
