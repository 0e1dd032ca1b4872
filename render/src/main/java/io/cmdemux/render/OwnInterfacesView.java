package io.cmdemux.render;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cmdemux.gid.GidEntry;
import io.cmdemux.gid.GidType;
import io.cmdemux.gid.OwnInterfaces;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.NetnsState;
import io.cmdemux.netdev.InetAddresses;
import io.cmdemux.pods.PodDirectory;
import java.util.List;
import java.util.Map;

/** The answer to QUERY self (docs/PROTOCOL.md §4): a namespace's own RDMA interfaces, which cmdemux-env reads. */
public final class OwnInterfacesView {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private OwnInterfacesView() {}

    /** The key of a GID type in "gidIndex", as cmdemux-env's --gid-type spells it. */
    public static String key(GidType t) {
        return switch (t) {
            case IB -> "ib";
            case ROCE_V1 -> "roce-v1";
            case ROCE_V2 -> "roce-v2";
        };
    }

    public static ObjectNode json(NetnsId netns, NetnsState state, List<OwnInterfaces.Interface> interfaces,
            PodDirectory pods) {
        ObjectNode o = F.objectNode();
        ObjectNode ns = o.putObject("netns");
        ns.put("inode", netns.inode());
        ArrayNode names = ns.putArray("names");
        if (state != null) {
            state.names().forEach(names::add);
        }
        ArrayNode podNames = o.putArray("pods");
        pods.podNames(netns.inode()).forEach(podNames::add);
        ArrayNode arr = o.putArray("interfaces");
        for (OwnInterfaces.Interface i : interfaces) {
            ObjectNode io = arr.addObject();
            io.put("ifname", i.ifname());
            io.put("ifindex", i.ifindex());
            io.put("kind", i.kind());
            io.put("device", i.device());
            io.put("port", i.port());
            io.put("linkLayer", i.roce() ? "ethernet" : "infiniband");
            ObjectNode chosen = io.putObject("gidIndex");
            for (Map.Entry<GidType, Integer> c : i.chosen().entrySet()) {
                chosen.put(key(c.getKey()), c.getValue());
            }
            ArrayNode gids = io.putArray("gids");
            for (GidEntry e : i.gids()) {
                ObjectNode g = gids.addObject();
                g.put("index", e.index());
                g.put("gid", e.gid().toString());
                g.put("type", e.type().text());
                if (e.gid().ip().isPresent() && i.roce()) {
                    g.put("ip", InetAddresses.toText(e.gid().ip().get()));
                } else {
                    g.putNull("ip");
                }
            }
            ArrayNode ws = io.putArray("warnings");
            i.warnings().forEach(ws::add);
        }
        return o;
    }
}
