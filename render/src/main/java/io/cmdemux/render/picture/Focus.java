package io.cmdemux.render.picture;

import io.cmdemux.gid.GidEntry;
import io.cmdemux.gid.RdmaDevice;
import io.cmdemux.gid.RdmaPort;
import io.cmdemux.gid.RdmaTopology;
import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.NetnsState;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.netdev.Link;
import io.cmdemux.netdev.LinkInfo;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What a picture is restricted to, so that a host with a thousand pods stays readable:
 * namespaces by name (or inode) and one RDMA port. An empty focus shows everything.
 *
 * @param namespaces names under /run/netns, "host", or inodes; empty for all
 * @param port "DEV/N" or "DEV" (all ports of DEV); null for all
 */
public record Focus(List<String> namespaces, String port) {
    public static final Focus ALL = new Focus(List.of(), null);

    public Focus {
        namespaces = List.copyOf(namespaces);
    }

    /** One RDMA port. */
    public record PortRef(RdmaDevice device, RdmaPort port) {}

    /**
     * What a picture shows.
     *
     * @param links every link drawn: the focus, then the context it needs
     * @param context links drawn only because a focus link stands on them (a pod's macvlan's parent)
     * @param namespaces every namespace drawn
     * @param partial namespaces drawn only for context, with some of their links
     */
    public record Selection(Set<LinkRef> links, Set<LinkRef> context, Set<NetnsId> namespaces, Set<NetnsId> partial,
            List<PortRef> ports, boolean everything) {
        /** The same selection with more links (and their namespaces) in it, each with its context. */
        public Selection plus(TopologySnapshot topo, RdmaTopology rdma, Set<LinkRef> more,
                Set<NetnsId> moreNamespaces) {
            Set<LinkRef> focus = new LinkedHashSet<>(links);
            focus.removeAll(context);
            focus.addAll(more);
            Set<NetnsId> named = new LinkedHashSet<>(namespaces);
            named.removeAll(partial);
            named.addAll(moreNamespaces);
            return Focus.complete(topo, focus, named, ports, everything);
        }
    }

    /** @throws IllegalArgumentException for a namespace or port that does not exist, naming those that do */
    public Selection select(TopologySnapshot topo, RdmaTopology rdma) {
        List<PortRef> ports = ports(rdma);
        Set<NetnsId> named = new LinkedHashSet<>();
        for (String n : namespaces) {
            NetnsState s = topo.findNamespace(n).orElseThrow(() -> new IllegalArgumentException("--namespace " + n
                    + ": no such namespace (there are " + topo.namespaces().size()
                            + "; `cmdemux topology` lists them)"));
            named.add(s.id());
        }
        Set<LinkRef> focus = new LinkedHashSet<>();
        if (port != null) {
            for (PortRef p : ports) {
                focus.addAll(closure(topo, p.port()));
            }
        } else {
            for (NetnsState s : topo.namespaces()) {
                for (Link l : s.links().values()) {
                    focus.add(new LinkRef(s.id(), l.ifindex()));
                }
            }
        }
        if (!named.isEmpty()) {
            focus.removeIf(l -> !named.contains(l.netns()));
        } else if (port == null) {
            topo.namespaces().forEach(s -> named.add(s.id()));
        }
        Selection sel = complete(topo, focus, named, ports, port == null && namespaces.isEmpty());
        if (port == null && !namespaces.isEmpty()) {
            // restricted to namespaces: only the ports that reach one of their links
            List<PortRef> reaching = ports.stream().filter(p -> reaches(p.port(), sel.links())).toList();
            return new Selection(sel.links(), sel.context(), sel.namespaces(), sel.partial(), reaching, false);
        }
        return sel;
    }

    private static boolean reaches(RdmaPort p, Set<LinkRef> links) {
        if (p.netdev() != null && links.contains(p.netdev())) {
            return true;
        }
        for (LinkRef l : p.ipoibParents()) {
            if (links.contains(l)) {
                return true;
            }
        }
        for (GidEntry e : p.gids()) {
            if (e.ndev() != null && links.contains(e.ndev())) {
                return true;
            }
        }
        return false;
    }

    /** Every RDMA port with its part of the host (the port closure of each), and nothing else. */
    public static Selection portsOnly(TopologySnapshot topo, RdmaTopology rdma) {
        List<PortRef> ports = ALL.ports(rdma);
        Set<LinkRef> links = new LinkedHashSet<>();
        for (PortRef p : ports) {
            links.addAll(closure(topo, p.port()));
        }
        Set<NetnsId> nss = new LinkedHashSet<>();
        links.forEach(l -> nss.add(l.netns()));
        return complete(topo, links, nss, ports, false);
    }

    /** Exactly these links and namespaces (each link with what it stands on) and these ports. */
    public static Selection of(TopologySnapshot topo, Set<LinkRef> links, Set<NetnsId> namespaces,
            List<PortRef> ports) {
        return complete(topo, links, namespaces, ports, false);
    }

    private static Selection complete(TopologySnapshot topo, Set<LinkRef> focus, Set<NetnsId> named,
            List<PortRef> ports, boolean everything) {
        Set<LinkRef> context = new LinkedHashSet<>();
        for (LinkRef l : focus) {
            lowers(topo, l, focus, context);
        }
        Set<LinkRef> all = new LinkedHashSet<>(focus);
        all.addAll(context);
        Set<NetnsId> nss = new LinkedHashSet<>(named);
        Set<NetnsId> partial = new LinkedHashSet<>();
        for (LinkRef l : all) {
            if (nss.add(l.netns())) {
                partial.add(l.netns());
            }
        }
        for (LinkRef l : focus) {
            partial.remove(l.netns());
        }
        return new Selection(all, context, nss, partial, ports, everything);
    }

    private List<PortRef> ports(RdmaTopology rdma) {
        List<PortRef> out = new ArrayList<>();
        String dev = port;
        Integer number = null;
        if (port != null) {
            int slash = port.lastIndexOf('/');
            if (slash > 0) {
                dev = port.substring(0, slash);
                try {
                    number = Integer.parseInt(port.substring(slash + 1));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("--port " + port + ": expected DEV/N, e.g. rxe0/1");
                }
            }
        }
        for (RdmaDevice d : rdma.devices()) {
            for (RdmaPort p : d.ports()) {
                if (port == null || (d.name().equals(dev) && (number == null || number == p.number()))) {
                    out.add(new PortRef(d, p));
                }
            }
        }
        if (port != null && out.isEmpty()) {
            List<String> known = new ArrayList<>();
            rdma.devices().forEach(d -> d.ports().forEach(p -> known.add(d.name() + "/" + p.number())));
            throw new IllegalArgumentException("--port " + port + ": no such RDMA port ("
                    + (known.isEmpty() ? "there are none; define a soft port with --rdma-port NAME=NETDEV"
                            : "there are: " + String.join(", ", known)) + ")");
        }
        return out;
    }

    /**
     * The port's net devices, every upper of them at any depth (in any namespace), their IPoIB
     * children, and the GID ndevs.
     */
    static Set<LinkRef> closure(TopologySnapshot topo, RdmaPort port) {
        Set<LinkRef> out = new LinkedHashSet<>();
        Deque<LinkRef> todo = new ArrayDeque<>();
        if (port.netdev() != null) {
            todo.add(port.netdev());
        }
        todo.addAll(port.ipoibParents());
        for (GidEntry e : port.gids()) {
            if (e.ndev() != null) {
                todo.add(e.ndev());
            }
        }
        while (!todo.isEmpty()) {
            LinkRef l = todo.poll();
            if (topo.link(l) == null || !out.add(l)) {
                continue;
            }
            todo.addAll(topo.uppersOf(l));
            for (LinkRef c : topo.childrenOf(l)) {
                Link cl = topo.link(c);
                if (cl != null && cl.info() instanceof LinkInfo.Ipoib) {
                    todo.add(c); // IPoIB children are no uppers, but the IB port's L2 pass walks them
                }
            }
        }
        return out;
    }

    /**
     * What a focus link stands on, so that its parent and master edges have both ends: parents,
     * masters and ports of masters.
     */
    private static void lowers(TopologySnapshot topo, LinkRef l, Set<LinkRef> focus, Set<LinkRef> context) {
        Deque<LinkRef> todo = new ArrayDeque<>();
        topo.parentOf(l).ifPresent(todo::add);
        topo.masterOf(l).ifPresent(todo::add);
        todo.addAll(topo.slavesOf(l));
        int guard = 0;
        while (!todo.isEmpty() && guard++ < 10_000) {
            LinkRef x = todo.poll();
            if (focus.contains(x) || topo.link(x) == null || !context.add(x)) {
                continue;
            }
            topo.parentOf(x).ifPresent(todo::add);
            topo.slavesOf(x).forEach(todo::add);
        }
    }
}
