package io.cmdemux.render;

import io.cmdemux.gid.Gid;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cmdemux.ingress.wire.CmAddressing;
import io.cmdemux.ingress.wire.CmMessage;
import io.cmdemux.ingress.wire.CmPath;
import io.cmdemux.ingress.wire.CmRej;
import io.cmdemux.ingress.wire.CmReq;
import io.cmdemux.ingress.wire.CmSidrReq;
import io.cmdemux.ingress.wire.CmaHeader;
import io.cmdemux.ingress.wire.Octets;
import io.cmdemux.ingress.wire.RejReason;
import io.cmdemux.ingress.wire.ServiceId;
import io.cmdemux.netdev.InetAddresses;
import java.lang.reflect.RecordComponent;
import java.util.Map;

/**
 * Every field of a CM message as JSON, in IBTA order, with the kernel's names. IDs, keys and QPNs are
 * hex strings of their field width; paths are flattened ("primaryLocalGid"); a service ID is followed
 * by its port space and port; a REQ and a SIDR REQ end with their rdma_cm header ("ipCm").
 */
final class CmFields {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;
    /** Hex digits per field name: the field's width in the IBTA tables. */
    private static final Map<String, Integer> HEX_DIGITS = Map.ofEntries(
            Map.entry("localCommId", 8), Map.entry("remoteCommId", 8), Map.entry("requestId", 8),
            Map.entry("localQkey", 8), Map.entry("qkey", 8),
            Map.entry("localQpn", 6), Map.entry("qpn", 6), Map.entry("localEecn", 6), Map.entry("remoteEecn", 6),
            Map.entry("remoteQpnEecn", 6), Map.entry("startingPsn", 6), Map.entry("vendorId", 6),
            Map.entry("pkey", 4));

    private CmFields() {}

    static ObjectNode json(CmMessage m) {
        ObjectNode o = F.objectNode();
        o.put("type", m.attribute().name());
        for (RecordComponent c : m.getClass().getRecordComponents()) {
            Object v = value(m, c);
            String name = c.getName();
            if (v instanceof CmPath p) {
                String prefix = name.substring(0, name.length() - "Path".length());
                for (RecordComponent pc : CmPath.class.getRecordComponents()) {
                    put(o, prefix + Character.toUpperCase(pc.getName().charAt(0)) + pc.getName().substring(1),
                            value(p, pc), pc.getName());
                }
                continue;
            }
            put(o, name, v, name);
            if (name.equals("serviceId")) {
                ServiceId sid = new ServiceId((Long) v);
                o.put("portSpace", sid.portSpace() == null ? String.format("0x%04x", sid.portSpaceCode())
                        : sid.portSpace().name());
                o.put("port", sid.port());
            }
            if (m instanceof CmRej rej && name.equals("reason")) {
                RejReason r = rej.reasonName();
                if (r == null) {
                    o.putNull("reasonName");
                } else {
                    o.put("reasonName", r.name());
                }
            }
        }
        if (m instanceof CmReq req) {
            o.set("ipCm", ipCm(req, req.serviceId()));
        } else if (m instanceof CmSidrReq sidr) {
            o.set("ipCm", ipCm(sidr, sidr.serviceId()));
        }
        return o;
    }

    /**
     * The 36 header bytes at the start of a request's private data, every field as it is on the wire
     * (tshark shows them for any IP version nibble, and the kernel reads them in every port space), then
     * under "kernel" how cma_save_ip_info reads them. srcIp and dstIp (an IP request), family and why
     * (AF_IB) and error (refused) repeat the kernel's reading in the shape decode had before.
     */
    static ObjectNode ipCm(CmMessage request, long serviceId) {
        CmaHeader h = CmaHeader.ofRequest(request);
        ObjectNode o = F.objectNode();
        o.put("version", h.cmaVersion());
        // Annex A11 splits cma_version into a major and a minor nibble, and tshark shows them so.
        o.put("majorVersion", h.cmaVersion() >>> 4);
        o.put("minorVersion", h.cmaVersion() & 0xf);
        o.put("ipVersion", h.ipVersion());
        o.put("reserved", h.reserved());
        o.put("srcPort", h.srcPort());
        o.put("srcAddr", InetAddresses.toText(CmaHeader.asIpv6(h.srcAddr())));
        o.put("dstAddr", InetAddresses.toText(CmaHeader.asIpv6(h.dstAddr())));
        o.put("srcIpv4", InetAddresses.toText(CmaHeader.asIpv4(h.srcAddr())));
        o.put("dstIpv4", InetAddresses.toText(CmaHeader.asIpv4(h.dstAddr())));
        o.put("consumerData", CmaHeader.consumerData(request.privateData()).hex());
        CmAddressing a = CmAddressing.of(serviceId, request.privateData());
        ObjectNode k = o.putObject("kernel");
        if (a instanceof CmAddressing.Ip ip) {
            k.put("reading", "ip");
            k.put("family", h.ipVersion() == 4 ? "AF_INET" : "AF_INET6");
            k.put("src", InetAddresses.toText(ip.src()));
            k.put("srcPort", ip.srcPort());
            k.put("dst", InetAddresses.toText(ip.dst()));
            k.put("dstPort", ip.port());
            o.put("srcIp", InetAddresses.toText(ip.src()));
            o.put("dstIp", InetAddresses.toText(ip.dst()));
        } else if (a instanceof CmAddressing.NativeIb ib) {
            k.put("reading", "af_ib");
            k.put("errno", "EAFNOSUPPORT");
            k.put("why", ib.why() + ": cma_ib_id_from_event takes the request as AF_IB, with no net device,"
                    + " in the host's namespace");
            o.put("family", "AF_IB");
            o.put("why", ib.why());
        } else if (a instanceof CmAddressing.BadCmaVersion bad) {
            k.put("reading", "refused");
            k.put("errno", "EINVAL");
            k.put("why", "cma_version " + bad.cmaVersion() + " is not 0: cma_save_ip_info fails,"
                    + " the listener's handler with it, and ib_cm sends REJ 28");
            o.put("error", "cma_version " + bad.cmaVersion() + " is not 0: the kernel refuses the request (EINVAL)");
        }
        return o;
    }

    private static void put(ObjectNode o, String key, Object v, String fieldName) {
        if (v instanceof Integer i) {
            Integer digits = HEX_DIGITS.get(fieldName);
            if (digits != null) {
                o.put(key, hex(i & 0xffffffffL, digits));
            } else {
                o.put(key, i);
            }
        } else if (v instanceof Long l) {
            o.put(key, hex(l, 16));
        } else if (v instanceof Boolean b) {
            o.put(key, b);
        } else if (v instanceof Gid g) {
            o.put(key, g.toString());
        } else if (v instanceof Octets b) {
            o.put(key, b.hex());
        } else {
            o.put(key, String.valueOf(v));
        }
    }

    static String hex(long v, int digits) {
        return "0x" + String.format("%0" + digits + "x", v);
    }

    private static Object value(Object record, RecordComponent c) {
        try {
            return c.getAccessor().invoke(record);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot read " + c.getName(), e);
        }
    }
}
