package io.cmdemux.render;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cmdemux.gid.GidEntry;
import io.cmdemux.gid.GidProblem;
import io.cmdemux.gid.GidType;
import io.cmdemux.gid.RdmaDevice;
import io.cmdemux.gid.RdmaPort;
import io.cmdemux.gid.RdmaTopology;
import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsState;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.netdev.InetAddresses;
import io.cmdemux.netdev.Link;
import io.cmdemux.pods.PodDirectory;
import java.util.List;

/** Renders GID tables and check results: a show_gids-like table for people, JSON for machines. */
public final class GidView {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private GidView() {}

    /** The JSON documented in the README: one object per GID entry. */
    public static ArrayNode json(TopologySnapshot snap, RdmaTopology rdma, String device) {
        return json(snap, rdma, device, PodDirectory.EMPTY);
    }

    /** With "pods" on the entries whose namespace has registered pods ("default/rdma-0"). */
    public static ArrayNode json(TopologySnapshot snap, RdmaTopology rdma, String device, PodDirectory pods) {
        ArrayNode out = F.arrayNode();
        for (RdmaDevice d : rdma.devices()) {
            if (device != null && !d.name().equals(device)) {
                continue;
            }
            for (RdmaPort p : d.ports()) {
                for (GidEntry e : p.gids()) {
                    ObjectNode o = out.addObject();
                    o.put("device", d.name());
                    o.put("port", p.number());
                    o.put("index", e.index());
                    o.put("gid", e.gid().toString());
                    o.put("type", e.type().text());
                    o.set("ndev", ndevJson(snap, e));
                    ArrayNode names = o.putArray("namespaceNames");
                    NetnsState ns = e.ndev() == null ? null : snap.namespace(e.ndev().netns());
                    if (ns != null) {
                        ns.names().forEach(names::add);
                    }
                    // Only where there are any: issue 4 fixed this object's fields, and most entries name no pod.
                    List<String> podNames = e.ndev() == null ? List.of() : pods.podNames(e.ndev().netns().inode());
                    if (!podNames.isEmpty()) {
                        ArrayNode pn = o.putArray("pods");
                        podNames.forEach(pn::add);
                    }
                }
            }
        }
        return out;
    }

    public static ObjectNode ndevJson(TopologySnapshot snap, GidEntry e) {
        if (e.ndev() == null) {
            return null;
        }
        ObjectNode n = F.objectNode();
        n.put("inode", e.ndev().netns().inode());
        n.put("ifindex", e.ndev().ifindex());
        Link l = snap.link(e.ndev());
        String name = l != null ? l.name() : e.ndevName();
        if (name == null) {
            n.putNull("name");
        } else {
            n.put("name", name);
        }
        return n;
    }

    /** Columns after show_gids (DEV PORT INDEX GID IPv4 VER DEV), plus the ndev's namespace and its names. */
    public static String text(TopologySnapshot snap, RdmaTopology rdma, String device) {
        return text(snap, rdma, device, PodDirectory.EMPTY);
    }

    public static String text(TopologySnapshot snap, RdmaTopology rdma, String device, PodDirectory pods) {
        StringBuilder sb = new StringBuilder();
        String fmt = "%-10s %-4s %-5s %-39s %-15s %-3s %-15s %-11s %s%n";
        sb.append(String.format(fmt, "DEV", "PORT", "INDEX", "GID", "IPv4", "VER", "NDEV", "NETNS", "NAMES"));
        sb.append(String.format(fmt, "---", "----", "-----", "---", "----", "---", "----", "-----", "-----"));
        int n = 0;
        for (RdmaDevice d : rdma.devices()) {
            if (device != null && !d.name().equals(device)) {
                continue;
            }
            for (RdmaPort p : d.ports()) {
                for (GidEntry e : p.gids()) {
                    n++;
                    String v4 = e.gid().isIpv4Mapped() ? InetAddresses.toText(e.gid().ip().get()) : "";
                    String ver = e.type() == GidType.ROCE_V2 ? "v2" : e.type() == GidType.ROCE_V1 ? "v1" : "IB";
                    String ndev = "";
                    String inode = "";
                    String names = "";
                    if (e.ndev() != null) {
                        Link l = snap.link(e.ndev());
                        ndev = l != null ? l.name() : e.ndevName() == null ? "?" : e.ndevName();
                        inode = Long.toString(e.ndev().netns().inode());
                        names = nsNames(snap, e.ndev());
                        List<String> podNames = pods.podNames(e.ndev().netns().inode());
                        if (!podNames.isEmpty()) {
                            names += (names.isEmpty() ? "" : " ") + "pod " + String.join(",", podNames);
                        }
                    } else if (e.ndevName() != null) {
                        ndev = e.ndevName();
                        inode = "?";
                        names = "(not tied to one namespace; see stderr)";
                    }
                    sb.append(String.format(fmt, d.name(), p.number(), e.index(), e.gid().sysfsText(), v4, ver, ndev,
                            inode, names));
                }
            }
        }
        sb.append(n).append(n == 1 ? " GID" : " GIDs").append('\n');
        return sb.toString();
    }

    private static String nsNames(TopologySnapshot snap, LinkRef ref) {
        NetnsState s = snap.namespace(ref.netns());
        if (s == null) {
            return "";
        }
        if (s.host()) {
            return s.names().isEmpty() ? "host" : "host," + String.join(",", s.names());
        }
        return String.join(",", s.names());
    }

    public static ObjectNode checkJson(List<GidProblem> problems) {
        ObjectNode root = F.objectNode();
        root.put("ok", problems.isEmpty());
        ArrayNode arr = root.putArray("problems");
        for (GidProblem p : problems) {
            ObjectNode o = arr.addObject();
            o.put("kind", p.kind().name());
            o.put("subject", p.subject());
            o.put("message", p.message());
            o.put("fix", p.fix());
        }
        return root;
    }

    public static String checkText(List<GidProblem> problems) {
        StringBuilder sb = new StringBuilder();
        for (GidProblem p : problems) {
            sb.append(p.kind().name()).append("  ").append(p.message()).append('\n');
            sb.append("    fix: ").append(p.fix()).append('\n');
        }
        sb.append(problems.isEmpty() ? "no GID problems found" : problems.size()
                + (problems.size() == 1 ? " problem" : " problems")).append('\n');
        return sb.toString();
    }
}
