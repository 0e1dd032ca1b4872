package io.cmdemux.render.picture;

import io.cmdemux.gid.GidEntry;
import io.cmdemux.gid.RdmaTopology;
import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.NetnsState;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.netdev.Address;
import io.cmdemux.netdev.Link;
import io.cmdemux.netdev.LinkInfo;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The host as a graph: a cluster and a node per namespace, a node per link (kind, mode,
 * addresses), RDMA devices and ports; edges parent → child (across namespaces too), master →
 * slave (the bond's active slave marked), port → its net devices, and port → every GID-owning
 * ndev labelled with the GID indices. Pure: a snapshot in, a {@link Graph} out.
 */
public final class TopologyGraph {
    /** Beyond this many addresses a node lists the count; its tooltip has them all. */
    private static final int ADDRESSES_SHOWN = 4;

    private TopologyGraph() {}

    public static Graph build(TopologySnapshot topo, RdmaTopology rdma, Focus.Selection sel) {
        Graph g = new Graph();
        for (NetnsState s : topo.namespaces()) {
            if (sel.namespaces().contains(s.id())) {
                addNamespace(g, s, sel.partial().contains(s.id()));
            }
        }
        for (NetnsState s : topo.namespaces()) {
            for (Link l : s.links().values()) {
                LinkRef ref = new LinkRef(s.id(), l.ifindex());
                if (sel.links().contains(ref)) {
                    addLink(g, s, l, ref, sel.context().contains(ref));
                }
            }
        }
        for (Focus.PortRef p : sel.ports()) {
            addPort(g, rdma, p);
        }
        addLinkEdges(g, topo, sel);
        int links = topo.linkCount();
        if (!sel.everything()) {
            g.caption().add("showing " + sel.namespaces().size() + " of " + topo.namespaces().size() + " namespaces, "
                    + sel.links().size() + " of " + links + " links");
        }
        g.caption().add("topology generation " + topo.generation() + ", RDMA generation " + rdma.generation());
        return g;
    }

    private static void addNamespace(Graph g, NetnsState s, boolean partial) {
        String who = s.host() ? "host" + (s.names().isEmpty() ? "" : " " + String.join(", ", s.names()))
                : s.names().isEmpty() ? "(unnamed)" : String.join(", ", s.names());
        List<String> label = new ArrayList<>();
        label.add((s.host() ? "" : "netns ") + who);
        label.add("inode " + s.id().inode() + (s.hostNsid() >= 0 ? ", nsid " + s.hostNsid() : "")
                + (partial ? " (partial)" : ""));
        Graph.Cluster c = g.cluster(Ids.cluster(s.id()), label);
        c.tooltip = String.join("\n", label) + "\n" + s.links().size() + " links";
        Graph.Node n = g.node(Ids.namespace(s.id()), c.id, Graph.Kind.NAMESPACE,
                List.of((s.host() ? "" : "netns ") + who));
        n.tooltip = c.tooltip;
        if (partial) {
            n.classes.add("context");
        }
    }

    private static void addLink(Graph g, NetnsState s, Link l, LinkRef ref, boolean context) {
        List<String> label = new ArrayList<>();
        label.add(l.name() + " #" + l.ifindex() + (l.up() ? "" : " DOWN"));
        label.add(kindAndMode(l));
        List<String> addrs = s.addressesOf(l.ifindex()).stream().map(Address::cidr).toList();
        for (int i = 0; i < addrs.size() && i < ADDRESSES_SHOWN; i++) {
            label.add(addrs.get(i));
        }
        if (addrs.size() > ADDRESSES_SHOWN) {
            label.add("+" + (addrs.size() - ADDRESSES_SHOWN) + " more");
        }
        Graph.Node n = g.node(Ids.link(ref), Ids.cluster(s.id()), Graph.Kind.LINK, label);
        n.classes.add("kind-" + Ids.safe(l.kind()));
        if (!l.up()) {
            n.classes.add("down");
        }
        if (context) {
            n.classes.add("context");
        }
        StringBuilder tip = new StringBuilder();
        tip.append(l.name()).append(" (ifindex ").append(l.ifindex()).append(") in ")
                .append(s.displayName()).append('\n')
                .append(kindAndMode(l)).append(", ").append(l.up() ? "UP" : "DOWN").append(", mtu ").append(l.mtu());
        if (l.mac() != null && l.mac().length() > 0) {
            tip.append(", ").append(l.mac());
        }
        for (String a : addrs) {
            tip.append('\n').append(a);
        }
        n.tooltip = tip.toString();
    }

    /** "macvlan bridge", "ipvlan l3", "bond active-backup", "vlan 100", "ipoib pkey 0x8001", "veth". */
    static String kindAndMode(Link l) {
        LinkInfo info = l.info();
        if (info instanceof LinkInfo.Macvlan m) {
            return l.kind() + " " + m.modeName();
        } else if (info instanceof LinkInfo.Ipvlan m) {
            return l.kind() + " " + m.modeName();
        } else if (info instanceof LinkInfo.Bond b) {
            return l.kind() + " " + b.modeName();
        } else if (info instanceof LinkInfo.Vlan v) {
            return l.kind() + " " + v.id();
        } else if (info instanceof LinkInfo.Ipoib i) {
            return l.kind() + String.format(" pkey 0x%04x %s", i.pkey(), i.modeName());
        } else if (info instanceof LinkInfo.Vxlan v && v.vni().isPresent()) {
            return l.kind() + " " + v.vni().getAsInt();
        }
        return l.kind();
    }

    private static void addPort(Graph g, RdmaTopology rdma, Focus.PortRef p) {
        String devId = Ids.rdmaDevice(p.device().name());
        // Exclusive mode puts the device in one namespace; when that one is not drawn, the device stands outside.
        String cluster = p.device().netns() != null && rdma.netnsMode() == RdmaTopology.NetnsMode.EXCLUSIVE
                ? clusterOf(g, p.device().netns()) : null;
        Graph.Node dev = g.node(devId, cluster, Graph.Kind.RDMA_DEVICE,
                List.of("RDMA " + p.device().name(), p.device().soft() ? "soft port"
                        : String.format("node GUID %016x", p.device().nodeGuid())));
        dev.tooltip = "RDMA device " + p.device().name() + (p.device().soft() ? " (a cmdemux soft RoCE port)" : "");
        String portId = Ids.rdmaPort(p.device().name(), p.port().number());
        String linkLayer = (p.port().roce() ? "RoCE" : "InfiniBand")
                + (p.port().state() == null ? "" : ", " + p.port().state());
        Graph.Node port = g.node(portId, cluster, Graph.Kind.RDMA_PORT,
                List.of(p.device().name() + "/" + p.port().number(), linkLayer, p.port().gids().size() + " GIDs"));
        port.tooltip = "port " + p.port().number() + " of " + p.device().name() + ": " + p.port().gids().size()
                + " GID entries, " + p.port().pkeys().pkeys().size() + " P_Keys";
        g.edge(null, devId, portId, "has-port", List.of());
        if (p.port().netdev() != null && g.has(Ids.link(p.port().netdev()))) {
            g.edge(null, portId, Ids.link(p.port().netdev()), "port-netdev", List.of("netdev"));
        }
        for (LinkRef parent : p.port().ipoibParents()) {
            if (g.has(Ids.link(parent))) {
                g.edge(null, portId, Ids.link(parent), "port-netdev", List.of("ipoib"));
            }
        }
        // One edge per ndev, labelled with all of its indices: a pod with IPv4 and IPv6 has several.
        Map<LinkRef, TreeSet<Integer>> byNdev = new LinkedHashMap<>();
        for (GidEntry e : p.port().gids()) {
            if (e.ndev() != null && g.has(Ids.link(e.ndev()))) {
                byNdev.computeIfAbsent(e.ndev(), k -> new TreeSet<>()).add(e.index());
            }
        }
        for (Map.Entry<LinkRef, TreeSet<Integer>> e : byNdev.entrySet()) {
            Graph.Edge edge = g.edge(null, portId, Ids.link(e.getKey()), "gid", List.of("gid " + join(e.getValue())));
            edge.tooltip = "GID index " + join(e.getValue()) + " of " + p.device().name() + "/" + p.port().number()
                    + " belongs to this device";
        }
    }

    private static String join(TreeSet<Integer> idx) {
        StringBuilder sb = new StringBuilder();
        for (int i : idx) {
            if (sb.length() > 0) {
                sb.append(',');
            }
            sb.append(i);
        }
        return sb.toString();
    }

    private static void addLinkEdges(Graph g, TopologySnapshot topo, Focus.Selection sel) {
        for (LinkRef ref : sel.links()) {
            Link l = topo.link(ref);
            Optional<LinkRef> parent = topo.parentOf(ref);
            if (parent.isPresent() && sel.links().contains(parent.get())) {
                LinkRef p = parent.get();
                Link pl = topo.link(p);
                boolean vethPair = "veth".equals(l.kind()) && pl != null && "veth".equals(pl.kind())
                        && topo.parentOf(p).map(ref::equals).orElse(false);
                if (vethPair) {
                    if (Ids.link(ref).compareTo(Ids.link(p)) < 0) { // a veth pair names each other: draw it once
                        Graph.Edge e = g.edge(null, Ids.link(ref), Ids.link(p), "veth-peer", List.of("veth"));
                        e.directed = false;
                        e.tooltip = "veth pair " + l.name() + " ~ " + pl.name();
                    }
                } else {
                    Graph.Edge e = g.edge(null, Ids.link(p), Ids.link(ref), "parent", List.of());
                    e.tooltip = (pl == null ? "?" : pl.name()) + " is the parent (IFLA_LINK) of " + l.name()
                            + (p.netns().equals(ref.netns()) ? "" : ", across namespaces");
                    if (!p.netns().equals(ref.netns())) {
                        e.classes.add("cross-netns");
                    }
                }
            }
            Optional<LinkRef> master = topo.masterOf(ref);
            if (master.isPresent() && sel.links().contains(master.get())) {
                addMasterEdge(g, topo, master.get(), ref, l);
            }
        }
    }

    private static void addMasterEdge(Graph g, TopologySnapshot topo, LinkRef master, LinkRef slave, Link sl) {
        Link m = topo.link(master);
        String role = "port";
        Boolean active = null;
        if (m != null && m.info() instanceof LinkInfo.Bond b && b.activeSlave() != 0) {
            active = b.activeSlave() == slave.ifindex();
        } else if (sl.slaveInfo() instanceof LinkInfo.BondSlave bs) {
            active = bs.active();
        }
        if (active != null) {
            role = active ? "active" : "backup";
        }
        Graph.Edge e = g.edge(null, Ids.link(master), Ids.link(slave), "master", List.of(role));
        if (Boolean.TRUE.equals(active)) {
            e.classes.add("active-slave");
        }
        e.tooltip = sl.name() + " is " + (active == null ? "a port" : role.equals("active") ? "the active slave"
                : "a backup slave") + " of " + (m == null ? "?" : m.name());
    }

    /** For callers that add nodes later (a decision's listener): the cluster a namespace's nodes go in, if drawn. */
    public static String clusterOf(Graph g, NetnsId ns) {
        String id = Ids.cluster(ns);
        for (Graph.Cluster c : g.clusters()) {
            if (c.id.equals(id)) {
                return id;
            }
        }
        return null;
    }
}
