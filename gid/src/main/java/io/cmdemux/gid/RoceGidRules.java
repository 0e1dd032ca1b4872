package io.cmdemux.gid;

import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.NetnsState;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.netdev.Address;
import io.cmdemux.netdev.HwAddr;
import io.cmdemux.netdev.Link;
import io.cmdemux.netdev.LinkInfo;
import java.net.InetAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Deque;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;

/**
 * The kernel's RoCE GID rules (drivers/infiniband/core/roce_gid_mgmt.c), as pure functions of a
 * {@link TopologySnapshot}. Which devices' IPs go into a port's table, which device owns the
 * default GIDs, in which order a fresh device enumerates them, and how events change a
 * {@link GidCache}.
 */
public final class RoceGidRules {
    /** rxe's ports support RoCE v2 only (rxe_port_immutable: RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP). */
    public static final Set<GidType> ROCE_V2_ONLY = Collections.unmodifiableSet(EnumSet.of(GidType.ROCE_V2));
    /** mlx4/mlx5 ports support both (RDMA_CORE_PORT_IBA_ROCE | ..._UDP_ENCAP). */
    public static final Set<GidType> ROCE_V1_V2 =
            Collections.unmodifiableSet(EnumSet.of(GidType.ROCE_V1, GidType.ROCE_V2));
    /** rxe_param.h RXE_PORT_GID_TBL_LEN. */
    public static final int RXE_GID_TABLE_LEN = 1024;
    /** make_default_gid: the link-local prefix of every default GID. */
    private static final long LINK_LOCAL_PREFIX = 0xfe80000000000000L;
    private static final String BOND = "bond";
    private static final String VLAN = "vlan";

    private RoceGidRules() {}

    // ---- GIDs of one device ----

    /**
     * make_default_gid: fe80:: and the modified EUI-64 of the MAC (addrconf_ifid_eui48 with
     * dev_id 0, which every Ethernet driver but zSeries OSA has): ff:fe in the middle, the
     * universal/local bit flipped. A MAC that is not 6 bytes leaves the interface id zero, as
     * addrconf_ifid_eui48 returns without writing.
     */
    public static Gid defaultGid(HwAddr mac) {
        if (mac == null || mac.length() != 6) {
            return new Gid(LINK_LOCAL_PREFIX, 0);
        }
        long id = 0;
        byte[] eui = {
            (byte) (mac.get(0) ^ 2),
            mac.get(1),
            mac.get(2),
            (byte) 0xff,
            (byte) 0xfe,
            mac.get(3),
            mac.get(4),
            mac.get(5)
        };
        for (byte b : eui) {
            id = (id << 8) | (b & 0xff);
        }
        return new Gid(LINK_LOCAL_PREFIX, id);
    }

    /**
     * The IPs of one device in the order _add_netdev_ips walks them: every IPv4 address
     * (enum_netdev_ipv4_ips, in_dev's list) and then every IPv6 address (enum_netdev_ipv6_ips,
     * addr_list), both in the kernel's list order, which is the dump order. Nothing is filtered:
     * link-local, tentative and DAD-failed IPv6 addresses are on addr_list and get GIDs too. For
     * IPv4 the kernel takes ifa_address, which is the peer of a point-to-point address, not the
     * local one.
     */
    public static List<InetAddress> gidAddresses(NetnsState ns, int ifindex) {
        List<InetAddress> v4 = new ArrayList<>(2);
        List<InetAddress> v6 = new ArrayList<>(2);
        for (Address a : ns.addresses()) {
            if (a.ifindex() != ifindex) {
                continue;
            }
            if (a.ipv4()) {
                v4.add(a.peer() != null ? a.peer() : a.address());
            } else {
                v6.add(a.address());
            }
        }
        v4.addAll(v6);
        return v4;
    }

    // ---- which devices ----

    /** Every upper device at any depth (netdev_walk_all_upper_dev_rcu), across namespaces. */
    public static Set<LinkRef> allUppers(TopologySnapshot snap, LinkRef dev) {
        Set<LinkRef> seen = new LinkedHashSet<>();
        Deque<LinkRef> todo = new ArrayDeque<>();
        todo.add(dev);
        while (!todo.isEmpty()) {
            for (LinkRef u : snap.uppersOf(todo.poll())) {
                if (!u.equals(dev) && seen.add(u)) {
                    todo.add(u);
                }
            }
        }
        return seen;
    }

    /**
     * is_eth_port_of_netdev_filter: the port's own netdev, and every upper of it, except that an
     * upper whose real device (the device under any vlans: rdma_vlan_dev_real_dev) is a bond with
     * an active slave counts only when the port's netdev is that active slave
     * (is_eth_active_slave_of_bonding_rcu). A macvlan or ipvlan on a bond is not a vlan, so it
     * counts on every slave's port, as in the kernel.
     *
     * @param events true for the notifier path, which first drops devices whose type is not
     *     ARPHRD_ETHER (netdevice_event, addr_event); a full rescan (enum_all_gids_of_dev_cb) does not
     */
    public static boolean isEthPortOfNetdev(
            TopologySnapshot snap, LinkRef portNetdev, LinkRef dev, Set<LinkRef> uppersOfPort, boolean events) {
        Link l = snap.link(dev);
        if (l == null) {
            return false;
        }
        if (events && l.arphrdType() != Link.ARPHRD_ETHER) {
            return false;
        }
        LinkRef real = vlanRealDev(snap, dev);
        if (real.equals(portNetdev)) {
            return true;
        }
        if (!uppersOfPort.contains(dev)) {
            return false;
        }
        Link r = snap.link(real);
        if (r != null && r.info() instanceof LinkInfo.Bond b && b.activeSlave() != 0) {
            return new LinkRef(real.netns(), b.activeSlave()).equals(portNetdev);
        }
        return true;
    }

    /**
     * is_ndev_for_default_gid_filter: the port's netdev unless it is a bond slave; a bond master
     * above it otherwise.
     */
    public static boolean isNdevForDefaultGid(
            TopologySnapshot snap, LinkRef portNetdev, LinkRef dev, Set<LinkRef> uppersOfPort) {
        Link l = snap.link(dev);
        if (l == null) {
            return false;
        }
        if (dev.equals(portNetdev)) {
            return !(l.slaveInfo() instanceof LinkInfo.BondSlave);
        }
        return l.kind().equals(BOND) && uppersOfPort.contains(dev);
    }

    /** The device under any stack of vlans (vlan_dev_real_dev); the device itself if it is no vlan. */
    static LinkRef vlanRealDev(TopologySnapshot snap, LinkRef dev) {
        LinkRef cur = dev;
        for (int depth = 0; depth < 16; depth++) {
            Link l = snap.link(cur);
            if (l == null || !l.kind().equals(VLAN)) {
                return cur;
            }
            LinkRef p = snap.parentOf(cur).orElse(null);
            if (p == null) {
                return cur;
            }
            cur = p;
        }
        return cur;
    }

    /** The kernel's for_each_net / for_each_netdev order, as near as a snapshot can tell it. */
    public static Comparator<LinkRef> enumerationOrder(TopologySnapshot snap) {
        Map<NetnsId, Integer> rank = namespaceRank(snap);
        return Comparator.comparing((LinkRef r) -> rank.getOrDefault(r.netns(), Integer.MAX_VALUE))
                .thenComparingInt(LinkRef::ifindex);
    }

    /**
     * for_each_net walks net_namespace_list: init_net, then namespaces in creation order. A
     * snapshot does not record creation order; nsfs inode numbers grow with it unless numbers of
     * dead namespaces are reused, so the host first and then ascending inode is the nearest we
     * have. Within a namespace, dev_base_head is registration order, approximated by ifindex.
     */
    static Map<NetnsId, Integer> namespaceRank(TopologySnapshot snap) {
        List<NetnsState> all = new ArrayList<>(snap.namespaces());
        all.sort(Comparator.comparing((NetnsState s) -> !s.id().equals(snap.host()))
                .thenComparingLong(s -> s.id().inode()));
        Map<NetnsId, Integer> rank = new HashMap<>();
        for (int i = 0; i < all.size(); i++) {
            rank.put(all.get(i).id(), i);
        }
        return rank;
    }

    /** The port netdev and its eligible uppers, in enumeration order. */
    public static List<LinkRef> eligibleNetdevs(TopologySnapshot snap, LinkRef portNetdev, boolean events) {
        Set<LinkRef> uppers = allUppers(snap, portNetdev);
        List<LinkRef> out = new ArrayList<>(uppers.size() + 1);
        if (isEthPortOfNetdev(snap, portNetdev, portNetdev, uppers, events)) {
            out.add(portNetdev);
        }
        for (LinkRef u : uppers) {
            if (isEthPortOfNetdev(snap, portNetdev, u, uppers, events)) {
                out.add(u);
            }
        }
        out.sort(enumerationOrder(snap));
        return out;
    }

    /** The devices whose MAC makes the default GIDs, in enumeration order (usually just one). */
    public static List<LinkRef> defaultGidNetdevs(TopologySnapshot snap, LinkRef portNetdev) {
        Set<LinkRef> uppers = allUppers(snap, portNetdev);
        List<LinkRef> out = new ArrayList<>();
        if (isNdevForDefaultGid(snap, portNetdev, portNetdev, uppers)) {
            out.add(portNetdev);
        }
        for (LinkRef u : uppers) {
            if (isNdevForDefaultGid(snap, portNetdev, u, uppers)) {
                out.add(u);
            }
        }
        out.sort(enumerationOrder(snap));
        return out;
    }

    // ---- whole tables ----

    /**
     * The events of rdma_roce_rescan_port (what a device registered now, e.g. by `rdma link add`,
     * does): for every netdev in enumeration order, its default GIDs if it owns them, then its
     * IPs if it is eligible.
     */
    public static List<GidEvent> rescan(TopologySnapshot snap, LinkRef portNetdev) {
        Set<LinkRef> uppers = allUppers(snap, portNetdev);
        List<LinkRef> devs = new ArrayList<>(uppers);
        devs.add(portNetdev);
        devs.sort(enumerationOrder(snap));
        List<GidEvent> out = new ArrayList<>();
        for (LinkRef d : devs) {
            Link l = snap.link(d);
            if (l == null) {
                continue;
            }
            if (isNdevForDefaultGid(snap, portNetdev, d, uppers) && l.mac() != null) {
                out.add(new GidEvent.SetDefault(d, l.mac()));
            }
            if (isEthPortOfNetdev(snap, portNetdev, d, uppers, false)) {
                for (InetAddress ip : gidAddresses(snap.namespace(d.netns()), d.ifindex())) {
                    out.add(new GidEvent.AddIp(d, ip));
                }
            }
        }
        return out;
    }

    /**
     * Applies one event for every supported GID type in enum ib_gid_type order (update_gid and
     * ib_cache_gid_set_default_gid loop over the type mask from bit 0 up: RoCE v1 before v2,
     * which is why an mlx5 port shows v1 at even and v2 at odd indices).
     */
    public static void apply(GidCache cache, Set<GidType> types, GidEvent e) {
        for (GidType t : GidType.values()) {
            if (!types.contains(t)) {
                continue;
            }
            if (e instanceof GidEvent.AddIp a) {
                cache.add(Gid.ofIp(a.ip()), t, a.ndev());
            } else if (e instanceof GidEvent.DelIp d) {
                cache.delete(Gid.ofIp(d.ip()), t, d.ndev());
            } else if (e instanceof GidEvent.SetDefault s) {
                cache.addDefault(defaultGid(s.mac()), t, s.ndev());
            } else if (e instanceof GidEvent.DelDefault d) {
                cache.deleteDefault(t, d.ndev());
            } else if (e instanceof GidEvent.DelAll d) {
                cache.deleteAllOf(d.ndev());
                return; // type-independent
            }
        }
    }

    public static void apply(GidCache cache, Set<GidType> types, List<GidEvent> events) {
        for (GidEvent e : events) {
            apply(cache, types, e);
        }
    }

    /** A new table (default slots reserved, one per type) after a given history of events. */
    public static GidCache replay(int tableSize, Set<GidType> types, List<GidEvent> history) {
        GidCache c = new GidCache(tableSize, types.size());
        apply(c, types, history);
        return c;
    }

    /** The table of a port whose device registers now on this topology, with ndev names filled in. */
    public static List<GidEntry> compute(TopologySnapshot snap, LinkRef portNetdev, Set<GidType> types, int tableSize) {
        return named(snap, replay(tableSize, types, rescan(snap, portNetdev)).entries());
    }

    /**
     * Fills in each entry's ndev name and VLAN id from the snapshot. The VLAN id is that of the
     * ndev itself when it is a vlan device (rdma_vlan_dev_vlan_id), so a macvlan on a vlan has none.
     */
    public static List<GidEntry> named(TopologySnapshot snap, List<GidEntry> entries) {
        List<GidEntry> out = new ArrayList<>(entries.size());
        for (GidEntry e : entries) {
            Link l = e.ndev() == null ? null : snap.link(e.ndev());
            OptionalInt vlan =
                    l != null && l.info() instanceof LinkInfo.Vlan v ? OptionalInt.of(v.id()) : OptionalInt.empty();
            String name = l != null ? l.name() : e.ndevName();
            out.add(new GidEntry(e.index(), e.gid(), e.type(), e.ndev(), vlan, name));
        }
        return out;
    }
}
