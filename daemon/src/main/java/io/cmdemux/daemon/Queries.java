package io.cmdemux.daemon;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cmdemux.control.protocol.ConsumerInfo;
import io.cmdemux.control.protocol.QueryKind;
import io.cmdemux.control.protocol.RequestRefused;
import io.cmdemux.control.server.QueryHandler;
import io.cmdemux.gid.Gid;
import io.cmdemux.ingress.resolve.Decision;
import io.cmdemux.ingress.resolve.HostState;
import io.cmdemux.ingress.resolve.PacketMeta;
import io.cmdemux.ingress.resolve.QpType;
import io.cmdemux.ingress.resolve.Resolver;
import io.cmdemux.ingress.resolve.ResolverMode;
import io.cmdemux.ingress.resolve.SyntheticRequest;
import io.cmdemux.ingress.wire.PortSpace;
import io.cmdemux.netdev.HwAddr;
import io.cmdemux.netdev.InetAddresses;
import io.cmdemux.pods.PodDirectory;
import io.cmdemux.pods.PodJson;
import io.cmdemux.pods.PodRegistration;
import io.cmdemux.render.DecisionView;
import io.cmdemux.render.GidView;
import io.cmdemux.render.TopologyView;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The control API's host queries, answered from the daemon's current state with the same views the CLI
 * prints, so that `cmdemux topology --json` and a QUERY topology are one answer. The control server has
 * already kept pods out of them (EPERM); everything in {@code args} is still the caller's and is checked here.
 */
public final class Queries implements QueryHandler {
    /** The arguments explain knows; any other is a typo the caller should hear about. */
    public static final Set<String> EXPLAIN_ARGS = Set.of("device", "port", "pkey", "guid", "dgid", "dst", "src", "ps",
            "qp_type", "af_ib",
            "vlan", "dmac");

    private final Supplier<HostState> state;
    private final Supplier<PodDirectory> pods;

    Queries(Supplier<HostState> state, Supplier<PodDirectory> pods) {
        this.state = state;
        this.pods = pods;
    }

    @Override
    public JsonNode answer(QueryKind kind, ObjectNode args, ConsumerInfo caller) throws RequestRefused {
        HostState s = state.get();
        switch (kind) {
            case TOPOLOGY:
                return TopologyView.json(s.topology(), pods.get());
            case GIDS:
                return GidView.json(s.topology(), s.rdma(), text(args, "device"), pods.get());
            case EXPLAIN:
                return explain(s, args);
            case PODS:
                return pods(args);
            default:
                throw new RequestRefused(95, "query " + kind + " is not answered by the daemon");
        }
    }

    /** Every registration, or those of {"namespace": .., "name": ..} (either may be left out). */
    private JsonNode pods(ObjectNode args) {
        String ns = text(args, "namespace");
        String name = text(args, "name");
        ArrayNode out = TopologyView.JSON.createArrayNode();
        for (PodRegistration r : pods.get().registrations()) {
            if ((ns == null || ns.equals(r.pod().namespace())) && (name == null || name.equals(r.pod().name()))) {
                out.add(PodJson.json(r));
            }
        }
        return out;
    }

    /** Both modes' decisions for the request {@code args} describe; bad arguments are EINVAL with the reason. */
    private static JsonNode explain(HostState s, ObjectNode args) throws RequestRefused {
        try {
            PacketMeta meta = request(args).meta(s.rdma());
            Decision k = Resolver.resolve(s, meta, ResolverMode.KERNEL);
            Decision n = Resolver.resolve(s, meta, ResolverMode.NETSTACK);
            return DecisionView.bothJson(s.topology(), k, n);
        } catch (IllegalArgumentException ex) {
            throw new RequestRefused(22, ex.getMessage());
        }
    }

    /**
     * {"dst": "IP:PORT", "src": "IP:PORT", "device", "port", "pkey", "guid", "dgid", "ps", "qp_type", "af_ib",
     * "vlan", "dmac"}: the options of `cmdemux explain`, with their defaults; only dst is required.
     */
    static SyntheticRequest request(ObjectNode args) {
        args.fieldNames().forEachRemaining(f -> {
            if (!EXPLAIN_ARGS.contains(f)) {
                throw new IllegalArgumentException("explain has no argument \"" + f + "\" (it has: " + String.join(", ",
                        EXPLAIN_ARGS.stream().sorted().toList()) + ")");
            }
        });
        String dst = text(args, "dst");
        if (dst == null) {
            throw new IllegalArgumentException("explain needs \"dst\": \"IP:PORT\"");
        }
        String src = text(args, "src");
        var d = InetAddresses.parseEndpoint("dst", dst);
        var r = SyntheticRequest.to(d, InetAddresses.parseEndpoint("src", src != null ? src
                : d.getAddress() instanceof java.net.Inet4Address ? "0.0.0.0:0" : "[::]:0"));
        String device = text(args, "device");
        if (device != null) {
            r.device(device);
        }
        if (args.has("port")) {
            r.port(number(args, "port", 1, 255));
        }
        if (args.has("pkey")) {
            // P_Keys are written in hex everywhere (sysfs, ibstat), so "0x8001" is taken as well as 32769.
            JsonNode k = args.get("pkey");
            int pkey = k.isTextual() ? decode("pkey", k.asText()) : number(args, "pkey", 0, 0xffff);
            if (pkey < 0 || pkey > 0xffff) {
                throw new IllegalArgumentException("\"pkey\" must be from 0 to 0xffff");
            }
            r.pkey(pkey);
        }
        String guid = text(args, "guid");
        if (guid != null) {
            r.guid(Gid.parseGuid(guid));
        }
        String dgid = text(args, "dgid");
        if (dgid != null) {
            r.dgid(Gid.parse(dgid));
        }
        String ps = text(args, "ps");
        if (ps != null) {
            r.portSpace(PortSpace.parse(ps));
        }
        String qp = text(args, "qp_type");
        if (qp != null) {
            r.qpType(QpType.parse(qp));
        }
        if (args.has("af_ib")) {
            if (!args.get("af_ib").isBoolean()) {
                throw new IllegalArgumentException("\"af_ib\" must be true or false");
            }
            r.afIb(args.get("af_ib").asBoolean());
        }
        if (args.has("vlan")) {
            r.vlan(number(args, "vlan", 0, 4095));
        }
        String dmac = text(args, "dmac");
        if (dmac != null) {
            r.dmac(HwAddr.parse(dmac));
        }
        return r;
    }

    private static String text(ObjectNode args, String name) {
        JsonNode v = args.get(name);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isTextual()) {
            throw new IllegalArgumentException("\"" + name + "\" must be a string");
        }
        return v.asText();
    }

    private static int decode(String name, String text) {
        try {
            return Integer.decode(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("\"" + name + "\" must be a number (0x8001 or 32769), not " + text);
        }
    }

    private static int number(ObjectNode args, String name, int min, int max) {
        JsonNode v = args.get(name);
        if (!v.isIntegralNumber() || !v.canConvertToInt() || v.asInt() < min || v.asInt() > max) {
            throw new IllegalArgumentException("\"" + name + "\" must be a whole number from " + min + " to " + max);
        }
        return v.asInt();
    }
}
