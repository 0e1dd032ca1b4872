package io.cmdemux.render;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsState;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.netdev.Address;
import io.cmdemux.netdev.Link;
import io.cmdemux.netdev.LinkInfo;
import io.cmdemux.pods.PodDirectory;
import io.cmdemux.pods.PodJson;
import io.cmdemux.pods.PodRegistration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Renders a snapshot for people (a tree) and machines (the JSON documented in the README). */
public final class TopologyView {
    public static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private TopologyView() {}

    public static ObjectNode json(TopologySnapshot snap) {
        return json(snap, PodDirectory.EMPTY);
    }

    /** With the pods the CNI plugin registered in each namespace. */
    public static ObjectNode json(TopologySnapshot snap, PodDirectory pods) {
        ObjectNode root = F.objectNode();
        root.put("generation", snap.generation());
        ArrayNode nss = root.putArray("namespaces");
        for (NetnsState s : snap.namespaces()) {
            ObjectNode n = nss.addObject();
            n.put("inode", s.id().inode());
            ArrayNode names = n.putArray("names");
            s.names().forEach(names::add);
            n.set("pods", podsJson(pods.inNetns(s.id().inode())));
            ArrayNode links = n.putArray("links");
            for (Link l : s.links().values()) {
                links.add(linkJson(snap, s, l));
            }
        }
        return root;
    }

    /** One entry per registered attachment: the pod, and the CNI key it was registered under. */
    static ArrayNode podsJson(List<PodRegistration> regs) {
        ArrayNode out = F.arrayNode();
        for (PodRegistration r : regs) {
            ObjectNode o = PodJson.podJson(r.pod());
            o.put("network", r.key().network());
            o.put("containerId", r.key().containerId());
            o.put("ifname", r.key().ifname());
            out.add(o);
        }
        return out;
    }

    static ObjectNode linkJson(TopologySnapshot snap, NetnsState s, Link l) {
        LinkRef me = new LinkRef(s.id(), l.ifindex());
        ObjectNode o = F.objectNode();
        o.put("ifindex", l.ifindex());
        o.put("name", l.name());
        o.put("kind", l.kind());
        if (l.mac() == null) {
            o.putNull("mac");
        } else {
            o.put("mac", l.mac().toString());
        }
        o.put("mtu", l.mtu());
        o.put("up", l.up());
        o.set("parent", refJson(snap, snap.parentOf(me), l.hasParent()));
        o.set("master", refJson(snap, snap.masterOf(me), l.masterIfindex() != 0));
        ArrayNode addrs = o.putArray("addresses");
        for (Address a : s.addressesOf(l.ifindex())) {
            addrs.add(a.cidr());
        }
        o.set("info", infoJson(l));
        return o;
    }

    private static ObjectNode refJson(TopologySnapshot snap, Optional<LinkRef> ref, boolean declared) {
        if (ref.isEmpty()) {
            if (!declared) {
                return null;
            }
            // IFLA_LINK is set but its nsid is unknown to us: say so rather than invent a place.
            ObjectNode o = F.objectNode();
            o.putNull("inode");
            o.putNull("ifindex");
            o.putNull("name");
            return o;
        }
        ObjectNode o = F.objectNode();
        o.put("inode", ref.get().netns().inode());
        o.put("ifindex", ref.get().ifindex());
        Link p = snap.link(ref.get());
        if (p == null) {
            o.putNull("name");
        } else {
            o.put("name", p.name());
        }
        return o;
    }

    static ObjectNode infoJson(Link l) {
        ObjectNode o = F.objectNode();
        LinkInfo info = l.info();
        if (info instanceof LinkInfo.Macvlan m) {
            o.put("mode", m.modeName());
        } else if (info instanceof LinkInfo.Ipvlan m) {
            o.put("mode", m.modeName());
            o.put("flags", m.flagsName());
        } else if (info instanceof LinkInfo.Bond b) {
            o.put("mode", b.modeName());
            if (b.activeSlave() == 0) {
                o.putNull("activeSlave");
            } else {
                o.put("activeSlave", b.activeSlave());
            }
        } else if (info instanceof LinkInfo.Vlan v) {
            o.put("id", v.id());
            o.put("protocol", v.protocolName());
        } else if (info instanceof LinkInfo.Ipoib i) {
            o.put("pkey", String.format("0x%04x", i.pkey()));
            o.put("mode", i.modeName());
            o.put("umcast", i.umcast());
        } else if (info instanceof LinkInfo.Vxlan v) {
            v.vni().ifPresent(id -> o.put("id", id));
        }
        if (l.slaveInfo() instanceof LinkInfo.BondSlave bs) {
            ObjectNode slave = o.putObject("slave");
            slave.put("kind", "bond");
            slave.put("state", bs.stateName());
            slave.put("linkFailureCount", bs.linkFailureCount());
        }
        return o;
    }

    public static String text(TopologySnapshot snap) {
        return text(snap, PodDirectory.EMPTY);
    }

    public static String text(TopologySnapshot snap, PodDirectory pods) {
        StringBuilder sb = new StringBuilder();
        for (NetnsState s : snap.namespaces()) {
            sb.append(s.host() ? "host" : "netns").append(' ').append(nsLabel(s))
                    .append("  inode ").append(s.id().inode());
            if (!s.host()) {
                sb.append("  nsid ").append(s.hostNsid() >= 0 ? Integer.toString(s.hostNsid()) : "-");
            }
            List<String> podNames = pods.podNames(s.id().inode());
            if (!podNames.isEmpty()) {
                sb.append("  pod ").append(String.join(", ", podNames));
            }
            sb.append('\n');
            List<Link> links = new ArrayList<>(s.links().values());
            for (int i = 0; i < links.size(); i++) {
                Link l = links.get(i);
                LinkRef me = new LinkRef(s.id(), l.ifindex());
                sb.append(i == links.size() - 1 ? "  └─ " : "  ├─ ");
                sb.append(String.format("%-4d %-16s %-9s", l.ifindex(), l.name(), kindText(l)));
                sb.append(String.format(" %-5s", l.up() ? "UP" : "DOWN"));
                if (l.mac() != null && l.mac().length() > 0) {
                    sb.append(' ').append(l.mac());
                }
                snap.parentOf(me).ifPresentOrElse(
                        p -> sb.append("  parent ").append(refText(snap, s, p)),
                        () -> {
                            if (l.hasParent()) {
                                sb.append("  parent ").append(l.parentIfindex()).append("@nsid ")
                                        .append(l.parentNsid().orElse(-1));
                            }
                        });
                snap.masterOf(me).ifPresent(m -> sb.append("  master ").append(refText(snap, s, m)));
                List<String> addrs = s.addressesOf(l.ifindex()).stream().map(Address::cidr).toList();
                if (!addrs.isEmpty()) {
                    sb.append("  ").append(String.join(", ", addrs));
                }
                sb.append('\n');
            }
        }
        return sb.toString();
    }

    private static String kindText(Link l) {
        LinkInfo info = l.info();
        if (info instanceof LinkInfo.Macvlan m) {
            return l.kind() + "/" + m.modeName();
        } else if (info instanceof LinkInfo.Ipvlan m) {
            return l.kind() + "/" + m.modeName();
        } else if (info instanceof LinkInfo.Bond b) {
            return l.kind() + "/" + b.modeName();
        } else if (info instanceof LinkInfo.Vlan v) {
            return l.kind() + "." + v.id();
        } else if (info instanceof LinkInfo.Ipoib i) {
            return l.kind() + String.format("/%04x", i.pkey());
        }
        return l.kind();
    }

    /** "host0" within the same namespace, "host0@pod1" across namespaces. */
    private static String refText(TopologySnapshot snap, NetnsState from, LinkRef ref) {
        Link p = snap.link(ref);
        String name = p == null ? "ifindex " + ref.ifindex() : p.name();
        if (ref.netns().equals(from.id())) {
            return name;
        }
        NetnsState other = snap.namespace(ref.netns());
        return name + "@" + (other == null ? Long.toString(ref.netns().inode()) : nsLabel(other));
    }

    static String nsLabel(NetnsState s) {
        if (s.host()) {
            return s.names().isEmpty() ? "host" : "host(" + String.join(",", s.names()) + ")";
        }
        return s.names().isEmpty() ? "(unnamed)" : String.join(",", s.names());
    }
}
