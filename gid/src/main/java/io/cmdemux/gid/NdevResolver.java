package io.cmdemux.gid;

import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsState;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.netdev.Link;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Ties the netdev names sysfs prints to links of a {@link TopologySnapshot}: a RoCE port's own netdev,
 * the ndev of each GID entry, and an IB port's IPoIB parents.
 *
 * <h2>Which link a gid_attrs/ndevs name means</h2>
 * print_ndev writes {@code ndev->name}: the name in the namespace that owns the device, with no
 * namespace, so "net1" in three pods is the same text three times. The rule, applied in order
 * until one link is left:
 * <ol>
 *   <li>the links of that name in any namespace (not altnames: print_ndev prints only the name);</li>
 *   <li>of those, the port's netdev and its uppers at any depth: roce_gid_mgmt records no other
 *       device as an ndev;</li>
 *   <li>of those, the ones the entry's GID belongs to: a default GID (fe80:: + EUI-64) must be
 *       their MAC's, any other GID one of their IPs (rdma_ip2gid; IPv4 as ::ffff:a.b.c.d).</li>
 * </ol>
 * If more than one is left (two pods whose net1 have the same IP) sysfs cannot tell them apart:
 * the entry keeps the name, has no ndev, and a problem says so. If none is left, the entry has
 * no ndev and a problem names the missing link.
 */
final class NdevResolver {
    private final TopologySnapshot snap;
    private final List<NetClassEntry> netClass;
    private final SysfsTree tree;

    /** {@code tree} counts the problems; {@code netClass} is what sysfs's net class showed. */
    NdevResolver(TopologySnapshot snap, List<NetClassEntry> netClass, SysfsTree tree) {
        this.snap = snap;
        this.netClass = netClass;
        this.tree = tree;
    }

    /**
     * The RoCE port's own netdev (rdma_ndev): the Ethernet netdev of the same PCI device whose
     * dev_port is the port number minus one (dev_id on kernels before dev_port), else the
     * ndev of the default GID at index 0.
     */
    LinkRef roceNetdev(String label, String device, int port, String gid0Ndev) {
        if (device != null) {
            List<NetClassEntry> same = netClass.stream()
                    .filter(n -> n.type() == Link.ARPHRD_ETHER && device.equals(n.device())).toList();
            List<NetClassEntry> byPort = same.stream().filter(n -> n.devPort() == port - 1).toList();
            if (byPort.size() != 1) {
                byPort = same.stream().filter(n -> n.devPort() < 0 && n.devId() == port - 1).toList();
            }
            if (byPort.size() == 1) {
                Link l = snap.hostState().linkByName(byPort.get(0).name());
                if (l != null) {
                    return new LinkRef(snap.host(), l.ifindex());
                }
            }
        }
        if (gid0Ndev != null) {
            Link l = snap.hostState().linkByName(gid0Ndev);
            if (l != null && l.name().equals(gid0Ndev)) {
                return new LinkRef(snap.host(), l.ifindex());
            }
            List<LinkRef> any = named(gid0Ndev);
            if (any.size() == 1) {
                return any.get(0);
            }
        }
        tree.problem(label + ": cannot tell the port's netdev (no net class device link, no ndev at GID index 0)");
        return null;
    }

    /** The devices roce_gid_mgmt may record as ndev for a port whose netdev is {@code netdev}. */
    Set<LinkRef> mayRecord(LinkRef netdev) {
        Set<LinkRef> s = new HashSet<>(RoceGidRules.allUppers(snap, netdev));
        s.add(netdev);
        return s;
    }

    /** The link GID entry {@code index} means by ndev {@code name}, by the rule above; null when none or many. */
    LinkRef ndev(String label, int index, String name, Gid gid, Set<LinkRef> mayOwn) {
        List<LinkRef> candidates = named(name);
        if (candidates.size() == 1) {
            return candidates.get(0);
        }
        if (candidates.isEmpty()) {
            tree.problem(label + " index " + index + ": ndev '" + name + "' is no link in any namespace");
            return null;
        }
        List<LinkRef> narrowed = candidates.stream().filter(mayOwn::contains).toList();
        if (narrowed.size() == 1) {
            return narrowed.get(0);
        }
        List<LinkRef> pool = narrowed.isEmpty() ? candidates : narrowed;
        List<LinkRef> owners = pool.stream().filter(c -> owns(c, gid)).toList();
        if (owners.size() == 1) {
            return owners.get(0);
        }
        List<String> where = new ArrayList<>();
        for (LinkRef c : (owners.isEmpty() ? pool : owners)) {
            NetnsState s = snap.namespace(c.netns());
            where.add(name + "@" + (s == null ? c.netns().toString() : s.displayName()));
        }
        tree.problem(label + " index " + index + ": ndev '" + name + "' with GID " + gid + " could be any of "
                + where + "; sysfs prints only the name, so this entry has no namespace");
        return null;
    }

    private boolean owns(LinkRef c, Gid gid) {
        Link l = snap.link(c);
        if (l != null && l.mac() != null && RoceGidRules.defaultGid(l.mac()).equals(gid)) {
            return true;
        }
        NetnsState s = snap.namespace(c.netns());
        if (s == null) {
            return false;
        }
        for (InetAddress ip : RoceGidRules.gidAddresses(s, c.ifindex())) {
            if (Gid.ofIp(ip).equals(gid)) {
                return true;
            }
        }
        return false;
    }

    private List<LinkRef> named(String name) {
        List<LinkRef> out = new ArrayList<>();
        for (NetnsState s : snap.namespaces()) {
            for (Link l : s.links().values()) {
                if (l.name().equals(name)) {
                    out.add(new LinkRef(s.id(), l.ifindex()));
                }
            }
        }
        return out;
    }

    /**
     * IPoIB parents on this port: net class entries with create_child (only parents have it)
     * of the same PCI device and port, and links anywhere whose 20-byte address carries the
     * port GID and that have no IFLA_LINK parent (ipoib_get_iflink gives a parent itself).
     */
    List<LinkRef> ipoibParents(String device, int port, Gid gid0) {
        Set<LinkRef> out = new HashSet<>();
        for (NetClassEntry n : netClass) {
            if (n.type() != Link.ARPHRD_INFINIBAND || !n.ipoibParent()) {
                continue;
            }
            boolean sameGid = gid0 != null && gid0.equals(n.ipoibGid());
            boolean samePort = device != null && device.equals(n.device()) && n.isPort(port);
            if (sameGid || samePort) {
                Link l = snap.hostState().linkByName(n.name());
                if (l != null) {
                    out.add(new LinkRef(snap.host(), l.ifindex()));
                } else {
                    tree.problem("IPoIB parent " + n.name() + " is in sysfs but not in the host's links");
                }
            }
        }
        if (gid0 != null) {
            for (NetnsState s : snap.namespaces()) {
                for (Link l : s.links().values()) {
                    if (l.arphrdType() == Link.ARPHRD_INFINIBAND && !l.hasParent()
                            && gid0.equals(NetClassEntry.ipoibGid(l.mac()))) {
                        out.add(new LinkRef(s.id(), l.ifindex()));
                    }
                }
            }
        }
        List<LinkRef> sorted = new ArrayList<>(out);
        sorted.sort(RoceGidRules.enumerationOrder(snap));
        return sorted;
    }
}
