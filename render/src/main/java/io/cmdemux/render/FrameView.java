package io.cmdemux.render;

import io.cmdemux.gid.Gid;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cmdemux.ingress.capture.CapturedFrame;
import io.cmdemux.ingress.wire.CmAddressing;
import io.cmdemux.ingress.wire.CmDrep;
import io.cmdemux.ingress.wire.CmDreq;
import io.cmdemux.ingress.wire.CmMessage;
import io.cmdemux.ingress.wire.CmMra;
import io.cmdemux.ingress.wire.CmRej;
import io.cmdemux.ingress.wire.CmRep;
import io.cmdemux.ingress.wire.CmReq;
import io.cmdemux.ingress.wire.CmRtu;
import io.cmdemux.ingress.wire.CmSidrRep;
import io.cmdemux.ingress.wire.CmSidrReq;
import io.cmdemux.ingress.wire.CmaHeader;
import io.cmdemux.ingress.wire.FrameResult;
import io.cmdemux.ingress.wire.Mad;
import io.cmdemux.ingress.wire.MadHeader;
import io.cmdemux.ingress.wire.RejReason;
import io.cmdemux.ingress.wire.RoceFrame;
import io.cmdemux.ingress.wire.ServiceId;
import io.cmdemux.netdev.InetAddresses;
import java.net.InetAddress;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;

/** Renders decoded frames: one JSON object, one tshark-like line, or every field (-v). */
public final class FrameView {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private FrameView() {}

    /**
     * The JSON shape README.md documents: frame, icrcValid, icrc, icrcCheck, l3, bth, mad, cm; or frame, error, offset.
     */
    public static ObjectNode json(CapturedFrame cf) {
        ObjectNode o = F.objectNode();
        o.put("frame", cf.index());
        if (cf.result() instanceof FrameResult.Failed failed) {
            o.put("error", failed.reason());
            o.put("offset", failed.offset());
            return o;
        }
        FrameResult.Decoded decoded = (FrameResult.Decoded) cf.result();
        RoceFrame f = decoded.frame();
        putIcrc(o, f);
        ObjectNode l3 = o.putObject("l3");
        l3.put("src", ip(f.l3().src()));
        l3.put("dst", ip(f.l3().dst()));
        if (f.l2() == null || f.l2().vlan() == null) {
            l3.putNull("vlan");
        } else {
            l3.put("vlan", f.l2().vlan().vid());
        }
        ObjectNode bth = o.putObject("bth");
        bth.put("opcode", f.bth().opcode());
        bth.put("pkey", f.bth().pkey());
        bth.put("destQp", f.bth().destQp());
        ObjectNode mad = o.putObject("mad");
        mad.put("mgmtClass", f.mad().header().mgmtClass());
        mad.put("method", f.mad().header().method());
        mad.put("attributeId", f.mad().header().attributeId());
        mad.put("transactionId", CmFields.hex(f.mad().header().transactionId(), 16));
        // The CM data as it was sent, reserved bits and all, which the message's fields leave out.
        mad.put("data", decoded.mad().slice(MadHeader.SIZE, Mad.SIZE - MadHeader.SIZE).hex());
        o.set("cm", CmFields.json(f.mad().message()));
        return o;
    }

    /**
     * icrcValid, then the ICRC's four bytes in wire order (as tshark and scapy show them; null when
     * the frame ends where they would start), then what a receiver makes of it.
     */
    private static void putIcrc(ObjectNode o, RoceFrame f) {
        o.put("icrcValid", f.icrcValid());
        if (f.icrcCheck() == RoceFrame.IcrcCheck.MISSING) {
            o.putNull("icrc");
        } else {
            o.put("icrc", CmFields.hex(Integer.reverseBytes(f.icrc()) & 0xffffffffL, 8));
        }
        o.put("icrcCheck", f.icrcCheck().name().toLowerCase(Locale.ROOT));
        if (!f.icrcValid()) {
            o.put("receiver", icrcProblem(f) + ": rxe_icrc_check fails and the receiver drops the frame without a word,"
                    + " as a NIC does");
        }
    }

    private static String icrcProblem(RoceFrame f) {
        return f.icrcCheck() == RoceFrame.IcrcCheck.MISSING
                ? "no ICRC (the frame ends where it would start; rxe reads the MAD's last 4 bytes as the ICRC)"
                : "ICRC wrong";
    }

    /** Everything we decoded, for -v: the JSON shape plus L2, all BTH and DETH fields and the whole MAD header. */
    static ObjectNode full(CapturedFrame cf) {
        ObjectNode o = json(cf);
        if (!(cf.result() instanceof FrameResult.Decoded d)) {
            return o;
        }
        RoceFrame f = d.frame();
        ObjectNode all = F.objectNode();
        all.put("frame", cf.index());
        all.put("length", cf.length());
        if (f.l2() != null) {
            ObjectNode l2 = all.putObject("l2");
            l2.put("src", f.l2().src().toString());
            l2.put("dst", f.l2().dst().toString());
            if (f.l2().vlan() != null) {
                l2.put("vlan", f.l2().vlan().vid());
                l2.put("pcp", f.l2().vlan().pcp());
                l2.put("dei", f.l2().vlan().dei());
            }
        }
        ObjectNode l3 = all.putObject("l3");
        l3.put("ipVersion", f.l3().ipVersion());
        l3.put("src", ip(f.l3().src()));
        l3.put("dst", ip(f.l3().dst()));
        l3.put("trafficClass", f.l3().trafficClass());
        l3.put("hopLimit", f.l3().hopLimit());
        l3.put("flowLabel", f.l3().flowLabel());
        l3.put("udpSrcPort", f.udpSrcPort());
        ObjectNode bth = all.putObject("bth");
        bth.put("opcode", f.bth().opcode());
        bth.put("solicitedEvent", f.bth().solicitedEvent());
        bth.put("migReq", f.bth().migReq());
        bth.put("padCount", f.bth().padCount());
        bth.put("tver", f.bth().tver());
        bth.put("pkey", CmFields.hex(f.bth().pkey(), 4));
        bth.put("fecn", f.bth().fecn());
        bth.put("becn", f.bth().becn());
        bth.put("destQp", f.bth().destQp());
        bth.put("ackReq", f.bth().ackReq());
        bth.put("psn", f.bth().psn());
        ObjectNode deth = all.putObject("deth");
        deth.put("qkey", CmFields.hex(f.deth().qkey() & 0xffffffffL, 8));
        deth.put("srcQp", f.deth().srcQp());
        MadHeader h = f.mad().header();
        ObjectNode mad = all.putObject("mad");
        mad.put("baseVersion", h.baseVersion());
        mad.put("mgmtClass", h.mgmtClass());
        mad.put("classVersion", h.classVersion());
        mad.put("method", CmFields.hex(h.method(), 2));
        mad.put("status", CmFields.hex(h.status(), 4));
        mad.put("classSpecific", CmFields.hex(h.classSpecific(), 4));
        mad.put("transactionId", CmFields.hex(h.transactionId(), 16));
        mad.put("attributeId", CmFields.hex(h.attributeId(), 4));
        mad.put("attributeModifier", CmFields.hex(h.attributeModifier() & 0xffffffffL, 8));
        mad.set("data", o.at("/mad/data"));
        all.set("cm", o.get("cm"));
        putIcrc(all, f);
        return all;
    }

    /** One line, like tshark's summary with its Info column, plus the fields that decide where a request goes. */
    public static String line(CapturedFrame cf) {
        StringBuilder sb = new StringBuilder(String.format("%6d  ", cf.index()));
        if (cf.result() instanceof FrameResult.Failed failed) {
            return sb.append("not a CM frame: ").append(failed.reason()).append(" (offset ").append(failed.offset())
                    .append(')').toString();
        }
        RoceFrame f = ((FrameResult.Decoded) cf.result()).frame();
        sb.append(ip(f.l3().src())).append(" → ").append(ip(f.l3().dst()));
        if (f.l2() != null && f.l2().vlan() != null) {
            sb.append(" vlan ").append(f.l2().vlan().vid());
        }
        CmMessage m = f.mad().message();
        sb.append("  CM: ").append(m.attribute().ibtaName()).append(' ').append(summary(m));
        if (m instanceof CmReq req && req.pkey() != f.bth().pkey()) {
            // ARCHITECTURE.md §4.3: the REQ's own P_Key decides; a different BTH P_Key is only worth a warning.
            sb.append(String.format("  [REQ P_Key 0x%04x, BTH P_Key 0x%04x]", req.pkey(), f.bth().pkey()));
        }
        if (!f.icrcValid()) {
            sb.append("  [").append(icrcProblem(f)).append(": the receiver drops the frame]");
        }
        return sb.toString();
    }

    static String summary(CmMessage m) {
        if (m instanceof CmReq r) {
            return String.format("localCommId=0x%08x %s qpn=0x%06x pkey=0x%04x gid=%s", r.localCommId(),
                    service(r.serviceId()), r.localQpn(), r.pkey(), r.primaryPath().remoteGid())
                    + addressing(r, r.serviceId());
        }
        if (m instanceof CmRej r) {
            RejReason name = r.reasonName();
            return String.format("localCommId=0x%08x remoteCommId=0x%08x reason=%d%s", r.localCommId(),
                    r.remoteCommId(), r.reason(), name == null ? "" : " (" + name.name() + ")");
        }
        if (m instanceof CmRep r) {
            return String.format("localCommId=0x%08x remoteCommId=0x%08x qpn=0x%06x", r.localCommId(), r.remoteCommId(),
                    r.localQpn());
        }
        if (m instanceof CmMra r) {
            return String.format("localCommId=0x%08x remoteCommId=0x%08x messageMraed=%d serviceTimeout=%d",
                    r.localCommId(), r.remoteCommId(), r.messageMraed(), r.serviceTimeout());
        }
        if (m instanceof CmRtu r) {
            return String.format("localCommId=0x%08x remoteCommId=0x%08x", r.localCommId(), r.remoteCommId());
        }
        if (m instanceof CmDreq r) {
            return String.format("localCommId=0x%08x remoteCommId=0x%08x remoteQpn=0x%06x", r.localCommId(),
                    r.remoteCommId(), r.remoteQpnEecn());
        }
        if (m instanceof CmDrep r) {
            return String.format("localCommId=0x%08x remoteCommId=0x%08x", r.localCommId(), r.remoteCommId());
        }
        if (m instanceof CmSidrReq r) {
            return String.format("requestId=0x%08x %s pkey=0x%04x", r.requestId(), service(r.serviceId()), r.pkey())
                    + addressing(r, r.serviceId());
        }
        if (m instanceof CmSidrRep r) {
            return String.format("requestId=0x%08x status=%d qpn=0x%06x qkey=0x%08x", r.requestId(), r.status(),
                    r.qpn(), r.qkey());
        }
        return "";
    }

    /**
     * How the kernel reads a request's rdma_cm header; when not as an IP request, the header's bytes
     * too, with the addresses in the form tshark picks (the last 4 bytes for IP version 4, else all 16).
     */
    private static String addressing(CmMessage request, long serviceId) {
        CmAddressing a = CmAddressing.of(serviceId, request.privateData());
        if (a instanceof CmAddressing.Ip ip) {
            return " ip=" + InetAddresses.toText(ip.src()) + ':' + ip.srcPort() + " → " + InetAddresses.toText(ip.dst())
                    + ':' + ip.port();
        }
        CmaHeader h = CmaHeader.ofRequest(request);
        String why = a instanceof CmAddressing.NativeIb ib ? "AF_IB (" + ib.why() + ")"
                : "refused (cma_version " + ((CmAddressing.BadCmaVersion) a).cmaVersion() + " is not 0)";
        return String.format(" %s cma_hdr=[version 0x%02x, IP version %d, %s:%d → %s]", why, h.cmaVersion(),
                h.ipVersion(), InetAddresses.toText(tsharkForm(h, h.srcAddr())), h.srcPort(),
                InetAddresses.toText(tsharkForm(h, h.dstAddr())));
    }

    private static InetAddress tsharkForm(CmaHeader h, Gid field) {
        return h.ipVersion() == 4 ? CmaHeader.asIpv4(field) : CmaHeader.asIpv6(field);
    }

    private static String service(long sidValue) {
        ServiceId sid = new ServiceId(sidValue);
        String ps = sid.portSpace() == null ? String.format("0x%04x", sid.portSpaceCode()) : sid.portSpace().name();
        return "sid=" + sid + " (" + ps + " " + sid.port() + ")";
    }

    /** All fields as indented "name: value" lines, after the one-line summary. */
    public static String verbose(CapturedFrame cf) {
        StringBuilder sb = new StringBuilder(line(cf)).append('\n');
        if (cf.result() instanceof FrameResult.Decoded) {
            appendTree(sb, full(cf), "        ");
        }
        return sb.toString();
    }

    private static void appendTree(StringBuilder sb, JsonNode node, String indent) {
        Iterator<Map.Entry<String, JsonNode>> it = node.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            if (e.getValue().isObject()) {
                sb.append(indent).append(e.getKey()).append(":\n");
                appendTree(sb, e.getValue(), indent + "    ");
            } else {
                sb.append(indent).append(e.getKey()).append(": ").append(e.getValue().asText()).append('\n');
            }
        }
    }

    /** IPv4 addresses as a.b.c.d, IPv6 as RFC 5952 text. */
    static String ip(Gid g) {
        return InetAddresses.toText(g.toInetAddress());
    }
}
