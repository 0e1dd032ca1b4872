package io.cmdemux.render;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cmdemux.ingress.resolve.Decision;
import io.cmdemux.ingress.resolve.Listener;
import io.cmdemux.ingress.resolve.TraceStep;
import io.cmdemux.namespaces.NetnsState;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.netdev.InetAddresses;
import io.cmdemux.netdev.Link;

/** Decisions for people (the walk, step by step) and machines (the JSON in the README). */
public final class DecisionView {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private DecisionView() {}

    public static ObjectNode json(TopologySnapshot topo, Decision d) {
        ObjectNode o = F.objectNode();
        o.put("outcome", d.outcome().name().toLowerCase());
        if (d.rejectReason() == null) {
            o.putNull("rejectReason");
        } else {
            o.put("rejectReason", d.rejectReason());
        }
        if (d.dropReason() == null) {
            o.putNull("dropReason");
        } else {
            o.put("dropReason", d.dropReason());
        }
        if (d.drop() == null) {
            o.putNull("drop");
        } else {
            o.put("drop", d.drop().label());
        }
        if (d.netdev() == null) {
            o.putNull("netdev");
        } else {
            ObjectNode n = o.putObject("netdev");
            n.put("inode", d.netdev().netns().inode());
            n.put("ifindex", d.netdev().ifindex());
            Link l = topo.link(d.netdev());
            n.put("name", l == null ? null : l.name());
        }
        if (d.netns() == null) {
            o.putNull("namespace");
        } else {
            ObjectNode n = o.putObject("namespace");
            n.put("inode", d.netns().inode());
            ArrayNode names = n.putArray("names");
            NetnsState s = topo.namespace(d.netns());
            if (s != null) {
                s.names().forEach(names::add);
            }
        }
        if (d.listener() == null) {
            o.putNull("listener");
        } else {
            o.set("listener", listenerJson(topo, d.listener()));
        }
        o.put("mode", d.mode().cliName());
        ArrayNode trace = o.putArray("trace");
        for (TraceStep t : d.trace()) {
            ObjectNode s = trace.addObject();
            s.put("step", t.step());
            s.put("function", t.kernelFunction());
            s.put("detail", t.detail());
            ArrayNode c = s.putArray("candidates");
            t.candidates().forEach(c::add);
            s.put("chosen", t.chosen());
            s.put("why", t.why());
        }
        return o;
    }

    static ObjectNode listenerJson(TopologySnapshot topo, Listener l) {
        ObjectNode o = F.objectNode();
        o.put("inode", l.netns().inode());
        NetnsState s = topo.namespace(l.netns());
        ArrayNode names = o.putArray("names");
        if (s != null) {
            s.names().forEach(names::add);
        }
        o.put("ps", l.portSpace().cliName());
        o.put("address", l.afIb() ? "ib" : InetAddresses.toText(l.address()));
        o.put("port", l.port());
        o.put("afonly", l.afonly());
        o.put("boundIfindex", l.boundIfindex());
        o.put("owner", l.owner());
        return o;
    }

    /** Both modes side by side, with where they disagree. */
    public static ObjectNode bothJson(TopologySnapshot topo, Decision kernel, Decision netstack) {
        ObjectNode o = json(topo, kernel);
        o.set("netstack", json(topo, netstack));
        o.put("agree", kernel.sameAnswer(netstack));
        return o;
    }

    public static String text(TopologySnapshot topo, Decision d) {
        StringBuilder sb = new StringBuilder();
        sb.append(d.mode().cliName()).append(" mode: ").append(summary(topo, d)).append('\n');
        int i = 1;
        for (TraceStep t : d.trace()) {
            sb.append(String.format("  %2d. %-17s %s%n", i++, t.step(), t.detail()));
            for (String c : t.candidates()) {
                sb.append("        · ").append(c).append('\n');
            }
            if (t.chosen() != null) {
                sb.append("        → ").append(t.chosen()).append('\n');
            }
            sb.append("        ").append(t.why()).append("  [").append(t.kernelFunction()).append("]\n");
        }
        return sb.toString();
    }

    public static String summary(TopologySnapshot topo, Decision d) {
        switch (d.outcome()) {
            case DELIVER:
                return "DELIVER to " + nsName(topo, d) + " via " + linkName(topo, d) + ", listener "
                        + listenerText(d.listener());
            case REJECT:
                boolean sidr = d.trace().stream().anyMatch(t -> t.step().equals("sidr-rep"));
                String why = sidr ? (d.rejectReason() == 1 ? " (SIDR_REP unsupported)" : " (SIDR_REP reject)")
                        : d.rejectReason() == 8 ? " (invalid service ID)" : " (consumer defined)";
                return "REJECT " + d.rejectReason() + why + (d.netns() != null ? " in " + nsName(topo, d) : "");
            default:
                return "DROP: " + d.dropReason();
        }
    }

    /** A hint at the misconfiguration that usually makes the two modes disagree. */
    public static String disagreementHint(TopologySnapshot topo, Decision kernel, Decision netstack) {
        if (kernel.sameAnswer(netstack)) {
            return null;
        }
        if (kernel.netns() != null && netstack.netns() != null && !kernel.netns().equals(netstack.netns())) {
            return "the GID table sends this request to " + nsName(topo, kernel)
                    + " but the frame itself is addressed to " + nsName(topo, netstack)
                    + ": the same IP is probably configured in both (the lowest GID index wins silently), "
                    + "or a GID entry is stale";
        }
        if (kernel.outcome() == Decision.Outcome.DROP && netstack.outcome() != Decision.Outcome.DROP) {
            return "the netstack would accept this frame but no GID entry matches it:"
                    + " the interface is not an upper of the RDMA port (veth/bridge get no GIDs)"
                    + " or the VLAN/GID type differs";
        }
        if (netstack.outcome() == Decision.Outcome.DROP && kernel.outcome() != Decision.Outcome.DROP) {
            return "a GID entry matches but the netstack would not deliver this frame to that device:"
                    + " check the destination MAC, VLAN and the bond's active slave";
        }
        return "the two modes reach different outcomes; compare their traces";
    }

    private static String nsName(TopologySnapshot topo, Decision d) {
        NetnsState s = topo.namespace(d.netns());
        return s == null ? "netns " + d.netns() : "netns " + s.displayName() + " (" + d.netns().inode() + ")";
    }

    private static String linkName(TopologySnapshot topo, Decision d) {
        if (d.netdev() == null) {
            return "no net device (AF_IB)";
        }
        Link l = topo.link(d.netdev());
        return l == null ? "ifindex " + d.netdev().ifindex() : l.name();
    }

    public static String listenerText(Listener l) {
        return (l.afIb() ? "AF_IB" : InetAddresses.toText(l.address())) + ":" + l.port() + "/"
                + l.portSpace().cliName();
    }
}
