package io.cmdemux.namespaces.testkit;

import io.cmdemux.namespaces.NamespaceDump;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.netdev.HwAddr;
import io.cmdemux.netdev.InetAddresses;
import io.cmdemux.netdev.Link;
import io.cmdemux.netdev.NlMessage;
import io.cmdemux.netdev.NlRequest;
import io.cmdemux.netdev.Route;
import io.cmdemux.netdev.Rtnl;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds topologies for link kinds this kernel cannot create (ipvlan, bond, vlan, IPoIB) as the
 * rtnetlink messages the kernel would dump, with our encoder {@link NlRequest} (which netdev's
 * golden-bytes test checks byte for byte against the uapi headers). The bytes then go through
 * the real decoder, exactly like a live dump.
 */
public final class DumpBuilder {
    private static final int IFF_UP_RUNNING =
            Link.IFF_UP | Link.IFF_BROADCAST | Link.IFF_MULTICAST | Link.IFF_LOWER_UP | 0x40;
    private final NetnsId host;
    private final Map<NetnsId, Ns> namespaces = new LinkedHashMap<>();
    private long nextInode;
    private int hostSelfNsid = -1;

    private static final class Ns {
        final NetnsId id;
        final List<String> names;
        final int hostNsid;
        final List<byte[]> messages = new ArrayList<>();
        final Map<Integer, Integer> nsidToHostNsid = new LinkedHashMap<>();

        Ns(NetnsId id, List<String> names, int hostNsid) {
            this.id = id;
            this.names = names;
            this.hostNsid = hostNsid;
        }
    }

    public DumpBuilder() {
        this.host = new NetnsId(0, 4026531840L);
        this.nextInode = 4026532000L;
        namespaces.put(host, new Ns(host, List.of(), -1));
    }

    public NetnsId host() {
        return host;
    }

    /**
     * Gives the host an nsid for itself, as RTM_NEWNSID with the host's own fd does: the host's
     * table then lists it, and the pods' tables name the host by it instead of by -1.
     */
    public DumpBuilder hostSelfNsid(int nsid) {
        hostSelfNsid = nsid;
        namespaces.get(host).nsidToHostNsid.put(nsid, nsid);
        return this;
    }

    /** A pod namespace; the host gives it nsid {@code hostNsid}, and it sees the host as nsid 0. */
    public NetnsId pod(String name, int hostNsid) {
        NetnsId id = new NetnsId(0, nextInode++);
        Ns ns = new Ns(id, List.of(name), hostNsid);
        namespaces.put(id, ns);
        ns.nsidToHostNsid.put(0, -1); // nsid 0 in the pod names the host (CURRENT_NSID -1)
        namespaces.get(host).nsidToHostNsid.put(hostNsid, hostNsid);
        return id;
    }

    /** A link; {@code parentNsid} is the nsid in this link's namespace of the parent's namespace, or -1. */
    public final class LinkSpec {
        private final NetnsId ns;
        private final int ifindex;
        private final String name;
        private String kind;
        private int arphrd = Link.ARPHRD_ETHER;
        private HwAddr mac;
        private int mtu = 1500;
        private boolean up = true;
        private int parent;
        private int parentNsid = -1;
        private int master;
        private final List<int[]> infoU32 = new ArrayList<>();
        private final List<int[]> infoU16 = new ArrayList<>();
        private final List<int[]> infoU8 = new ArrayList<>();
        private final List<int[]> infoBe16 = new ArrayList<>();
        private String slaveKind;
        private final List<int[]> slaveU8 = new ArrayList<>();

        LinkSpec(NetnsId ns, int ifindex, String name) {
            this.ns = ns;
            this.ifindex = ifindex;
            this.name = name;
            this.mac = HwAddr.parse(String.format("02:00:%02x:%02x:%02x:%02x",
                    (ns.inode() >> 8) & 0xff, ns.inode() & 0xff, ifindex >> 8, ifindex & 0xff));
        }

        public LinkSpec kind(String k) { this.kind = k; return this; }
        public LinkSpec mac(String m) { this.mac = HwAddr.parse(m); return this; }
        public LinkSpec mac(HwAddr m) { this.mac = m; return this; }
        public LinkSpec down() { this.up = false; return this; }
        public LinkSpec parent(int ifindex) { this.parent = ifindex; return this; }
        public LinkSpec parent(int ifindex, int nsid) { this.parent = ifindex; this.parentNsid = nsid; return this; }
        public LinkSpec master(int ifindex) { this.master = ifindex; return this; }
        public LinkSpec arphrd(int t) { this.arphrd = t; return this; }

        public LinkSpec macvlan(int parentIfindex, int parentNsid, int mode) {
            kind = "macvlan";
            parent(parentIfindex, parentNsid);
            infoU32.add(new int[] {Rtnl.IFLA_MACVLAN_MODE, mode});
            return this;
        }

        public LinkSpec ipvlan(int parentIfindex, int parentNsid, int mode) {
            kind = "ipvlan";
            parent(parentIfindex, parentNsid);
            infoU16.add(new int[] {Rtnl.IFLA_IPVLAN_MODE, mode});
            infoU16.add(new int[] {Rtnl.IFLA_IPVLAN_FLAGS, 0});
            return this;
        }

        public LinkSpec vlan(int parentIfindex, int parentNsid, int vid) {
            kind = "vlan";
            parent(parentIfindex, parentNsid);
            infoU16.add(new int[] {Rtnl.IFLA_VLAN_ID, vid});
            infoBe16.add(new int[] {Rtnl.IFLA_VLAN_PROTOCOL, 0x8100});
            return this;
        }

        public LinkSpec bond(int mode, int activeSlave) {
            kind = "bond";
            infoU8.add(new int[] {Rtnl.IFLA_BOND_MODE, mode});
            if (activeSlave != 0) {
                infoU32.add(new int[] {Rtnl.IFLA_BOND_ACTIVE_SLAVE, activeSlave});
            }
            return this;
        }

        public LinkSpec bondSlave(int masterIfindex, boolean active) {
            master(masterIfindex);
            slaveKind = "bond";
            slaveU8.add(new int[] {Rtnl.IFLA_BOND_SLAVE_STATE, active ? 0 : 1});
            return this;
        }

        /** An IPoIB device: 20-byte hardware address (QPN + GID) and IFLA_IPOIB_PKEY. */
        public LinkSpec ipoib(int pkey, String gid, int qpn) {
            kind = "ipoib";
            arphrd = Link.ARPHRD_INFINIBAND;
            mtu = 2044;
            byte[] hw = new byte[20];
            ByteBuffer.wrap(hw).putInt(qpn & 0xffffff);
            System.arraycopy(InetAddresses.parse(gid).getAddress(), 0, hw, 4, 16);
            mac = HwAddr.of(hw);
            infoU16.add(new int[] {Rtnl.IFLA_IPOIB_PKEY, pkey});
            infoU16.add(new int[] {Rtnl.IFLA_IPOIB_MODE, 0});
            infoU16.add(new int[] {Rtnl.IFLA_IPOIB_UMCAST, 0});
            return this;
        }

        /** Adds the RTM_NEWLINK message to the namespace's dump. */
        public DumpBuilder add() {
            byte[] ifi = new byte[Rtnl.IFINFOMSG_SIZE];
            ByteBuffer b = ByteBuffer.wrap(ifi).order(ByteOrder.nativeOrder());
            b.putShort(2, (short) arphrd)
                    .putInt(4, ifindex)
                    .putInt(8, up ? IFF_UP_RUNNING : Link.IFF_BROADCAST | Link.IFF_MULTICAST);
            NlRequest r = new NlRequest(Rtnl.RTM_NEWLINK, NlMessage.NLM_F_MULTI, 1).header(ifi)
                    .string(Rtnl.IFLA_IFNAME, name)
                    .u32(Rtnl.IFLA_MTU, mtu)
                    .u8(Rtnl.IFLA_OPERSTATE, up ? 6 : 2);
            if (mac != null) {
                r.attr(Rtnl.IFLA_ADDRESS, mac.bytes());
            }
            if (parent != 0) {
                r.u32(Rtnl.IFLA_LINK, parent);
            }
            if (parentNsid >= 0) {
                r.u32(Rtnl.IFLA_LINK_NETNSID, parentNsid);
            }
            if (master != 0) {
                r.u32(Rtnl.IFLA_MASTER, master);
            }
            if (kind != null || slaveKind != null) {
                r.beginNest(Rtnl.IFLA_LINKINFO);
                if (kind != null) {
                    r.string(Rtnl.IFLA_INFO_KIND, kind);
                    r.beginNest(Rtnl.IFLA_INFO_DATA);
                    infoU32.forEach(a -> r.u32(a[0], a[1]));
                    infoU16.forEach(a -> r.u16(a[0], a[1]));
                    infoU8.forEach(a -> r.u8(a[0], a[1]));
                    infoBe16.forEach(a -> r.u16(a[0], Short.reverseBytes((short) a[1]) & 0xffff));
                    r.endNest();
                }
                if (slaveKind != null) {
                    r.string(Rtnl.IFLA_INFO_SLAVE_KIND, slaveKind);
                    r.beginNest(Rtnl.IFLA_INFO_SLAVE_DATA);
                    slaveU8.forEach(a -> r.u8(a[0], a[1]));
                    r.endNest();
                }
                r.endNest();
            }
            namespaces.get(ns).messages.add(r.toBytes());
            return DumpBuilder.this;
        }
    }

    public LinkSpec link(NetnsId ns, int ifindex, String name) {
        return new LinkSpec(ns, ifindex, name);
    }

    /**
     * Adds an address and the routes the kernel adds with it: "local ADDR" in table local and the
     * connected prefix in table main (IPv6 prefix routes get metric 256).
     */
    public DumpBuilder addr(NetnsId ns, int ifindex, String cidr) {
        String[] p = cidr.split("/");
        InetAddress a = InetAddresses.parse(p[0]);
        int len = Integer.parseInt(p[1]);
        boolean v4 = a instanceof Inet4Address;
        int family = v4 ? Rtnl.AF_INET : Rtnl.AF_INET6;
        byte[] ifa = new byte[Rtnl.IFADDRMSG_SIZE];
        ByteBuffer.wrap(ifa).order(ByteOrder.nativeOrder()).put(0, (byte) family).put(1, (byte) len).put(2, (byte) 0x80)
                .put(3, (byte) (a.isLinkLocalAddress() ? 253 : 0)).putInt(4, ifindex);
        NlRequest r = new NlRequest(Rtnl.RTM_NEWADDR, NlMessage.NLM_F_MULTI, 1)
                .header(ifa)
                .attr(Rtnl.IFA_ADDRESS, a.getAddress());
        if (v4) {
            r.attr(Rtnl.IFA_LOCAL, a.getAddress());
        }
        namespaces.get(ns).messages.add(r.toBytes());
        route(ns, Route.RT_TABLE_LOCAL, Route.RTN_LOCAL, p[0] + "/" + (v4 ? 32 : 128), ifindex, null, 0);
        if (len < (v4 ? 32 : 128)) {
            route(ns, Route.RT_TABLE_MAIN, Route.RTN_UNICAST, network(a, len) + "/" + len, ifindex, null, v4 ? 0 : 256);
        }
        return this;
    }

    /** A route; {@code dst} "default" or a CIDR; gateway may be null. */
    public DumpBuilder route(NetnsId ns, int table, int type, String dst, int oif, String gateway, int metric) {
        boolean def = dst.equals("default") || dst.equals("default6");
        InetAddress d = def ? null : InetAddresses.parse(dst.split("/")[0]);
        boolean v4 = def ? !dst.equals("default6") : d instanceof Inet4Address;
        int len = def ? 0 : Integer.parseInt(dst.split("/")[1]);
        byte[] rtm = new byte[Rtnl.RTMSG_SIZE];
        ByteBuffer.wrap(rtm)
                .order(ByteOrder.nativeOrder())
                .put(0, (byte) (v4 ? Rtnl.AF_INET : Rtnl.AF_INET6))
                .put(1, (byte) len)
                .put(4, (byte) table)
                .put(5, (byte) 2)
                .put(6, (byte) (type == Route.RTN_LOCAL ? 254 : 0))
                .put(7, (byte) type);
        NlRequest r = new NlRequest(Rtnl.RTM_NEWROUTE, NlMessage.NLM_F_MULTI, 1).header(rtm).u32(Rtnl.RTA_TABLE, table);
        if (d != null) {
            r.attr(Rtnl.RTA_DST, d.getAddress());
        }
        if (oif != 0) {
            r.u32(Rtnl.RTA_OIF, oif);
        }
        if (gateway != null) {
            r.attr(Rtnl.RTA_GATEWAY, InetAddresses.parse(gateway).getAddress());
        }
        if (metric != 0) {
            r.u32(Rtnl.RTA_PRIORITY, metric);
        }
        namespaces.get(ns).messages.add(r.toBytes());
        return this;
    }

    private static String network(InetAddress a, int len) {
        byte[] b = a.getAddress();
        for (int i = 0; i < b.length * 8; i++) {
            if (i >= len) {
                b[i / 8] &= (byte) ~(0x80 >> (i % 8));
            }
        }
        try {
            return InetAddresses.toText(InetAddress.getByAddress(b));
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    /** The dumps, with each namespace's nsid table as RTM_NEWNSID records like LiveDumper records them. */
    public List<NamespaceDump> dumps() {
        List<NamespaceDump> out = new ArrayList<>();
        for (Ns ns : namespaces.values()) {
            List<byte[]> msgs = new ArrayList<>(ns.messages);
            for (Map.Entry<Integer, Integer> e : ns.nsidToHostNsid.entrySet()) {
                NlRequest r = new NlRequest(Rtnl.RTM_NEWNSID, NlMessage.NLM_F_MULTI, 1)
                        .header(new byte[Rtnl.RTGENMSG_SIZE])
                        .u32(Rtnl.NETNSA_NSID, e.getKey());
                if (!ns.id.equals(host)) {
                    r.u32(Rtnl.NETNSA_CURRENT_NSID, e.getValue() == -1 ? hostSelfNsid : e.getValue());
                }
                msgs.add(r.toBytes());
            }
            out.add(new NamespaceDump(ns.id, ns.names, ns.id.equals(host) ? hostSelfNsid : ns.hostNsid, msgs));
        }
        return out;
    }

    public TopologySnapshot snapshot(long generation) {
        TopologySnapshot s = TopologySnapshot.build(generation, host, dumps());
        if (!s.problems().isEmpty()) {
            throw new AssertionError("fixture does not decode: " + s.problems());
        }
        return s;
    }
}
