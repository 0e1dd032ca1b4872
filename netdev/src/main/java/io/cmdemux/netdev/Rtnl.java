package io.cmdemux.netdev;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * rtnetlink: message types, attribute numbers and the pure decoders for links, addresses, routes
 * and nsids. Constants come from <linux/rtnetlink.h>, <linux/if_link.h>, <linux/if_addr.h> and
 * <linux/net_namespace.h>.
 */
public final class Rtnl {
    public static final int RTM_NEWLINK = 16;
    public static final int RTM_DELLINK = 17;
    public static final int RTM_GETLINK = 18;
    public static final int RTM_NEWADDR = 20;
    public static final int RTM_DELADDR = 21;
    public static final int RTM_GETADDR = 22;
    public static final int RTM_NEWROUTE = 24;
    public static final int RTM_DELROUTE = 25;
    public static final int RTM_GETROUTE = 26;
    public static final int RTM_NEWNEIGH = 28;
    public static final int RTM_GETNEIGH = 30;
    public static final int RTM_NEWNSID = 88;
    public static final int RTM_DELNSID = 89;
    public static final int RTM_GETNSID = 90;

    public static final int RTNLGRP_LINK = 1;
    public static final int RTNLGRP_IPV4_IFADDR = 5;
    public static final int RTNLGRP_IPV4_ROUTE = 7;
    public static final int RTNLGRP_IPV6_IFADDR = 9;
    public static final int RTNLGRP_IPV6_ROUTE = 11;
    public static final int RTNLGRP_NSID = 28;

    public static final int AF_UNSPEC = 0;
    public static final int AF_INET = 2;
    public static final int AF_INET6 = 10;

    // struct ifinfomsg, ifaddrmsg, rtmsg, rtgenmsg
    public static final int IFINFOMSG_SIZE = 16;
    public static final int IFADDRMSG_SIZE = 8;
    public static final int RTMSG_SIZE = 12;
    public static final int RTGENMSG_SIZE = 4; // 1 byte, padded by NLMSG_ALIGN
    public static final int NDMSG_SIZE = 12;
    public static final int NDA_DST = 1;
    public static final int NDA_LLADDR = 2;

    public static final int IFLA_ADDRESS = 1;
    public static final int IFLA_IFNAME = 3;
    public static final int IFLA_MTU = 4;
    public static final int IFLA_LINK = 5;
    public static final int IFLA_MASTER = 10;
    public static final int IFLA_OPERSTATE = 16;
    public static final int IFLA_LINKINFO = 18;
    public static final int IFLA_EXT_MASK = 29;
    public static final int IFLA_LINK_NETNSID = 37;
    public static final int IFLA_TARGET_NETNSID = 46;
    public static final int IFLA_PROP_LIST = 52;
    public static final int IFLA_ALT_IFNAME = 53;

    public static final int IFLA_INFO_KIND = 1;
    public static final int IFLA_INFO_DATA = 2;
    public static final int IFLA_INFO_SLAVE_KIND = 4;
    public static final int IFLA_INFO_SLAVE_DATA = 5;

    public static final int IFLA_MACVLAN_MODE = 1;
    public static final int IFLA_MACVLAN_FLAGS = 2;
    public static final int IFLA_IPVLAN_MODE = 1;
    public static final int IFLA_IPVLAN_FLAGS = 2;
    public static final int IFLA_BOND_MODE = 1;
    public static final int IFLA_BOND_ACTIVE_SLAVE = 2;
    public static final int IFLA_BOND_SLAVE_STATE = 1;
    public static final int IFLA_BOND_SLAVE_MII_STATUS = 2;
    public static final int IFLA_BOND_SLAVE_LINK_FAILURE_COUNT = 3;
    public static final int IFLA_BOND_SLAVE_PERM_HWADDR = 4;
    public static final int IFLA_BOND_SLAVE_QUEUE_ID = 5;
    public static final int IFLA_VLAN_ID = 1;
    public static final int IFLA_VLAN_FLAGS = 2;
    public static final int IFLA_VLAN_PROTOCOL = 5;
    public static final int IFLA_IPOIB_PKEY = 1;
    public static final int IFLA_IPOIB_MODE = 2;
    public static final int IFLA_IPOIB_UMCAST = 3;
    public static final int IFLA_VXLAN_ID = 1;

    public static final int RTEXT_FILTER_SKIP_STATS = 1 << 3;

    public static final int IFA_ADDRESS = 1;
    public static final int IFA_LOCAL = 2;
    public static final int IFA_LABEL = 3;
    public static final int IFA_FLAGS = 8;
    public static final int IFA_TARGET_NETNSID = 10;

    public static final int RTA_DST = 1;
    public static final int RTA_OIF = 4;
    public static final int RTA_GATEWAY = 5;
    public static final int RTA_PRIORITY = 6;
    public static final int RTA_PREFSRC = 7;
    public static final int RTA_MULTIPATH = 9;
    public static final int RTA_TABLE = 15;

    public static final int NETNSA_NSID = 1;
    public static final int NETNSA_FD = 3;
    public static final int NETNSA_TARGET_NSID = 4;
    public static final int NETNSA_CURRENT_NSID = 5;
    public static final int NETNSA_NSID_NOT_ASSIGNED = -1;

    private Rtnl() {}

    // ---- requests ----

    public static NlRequest getLinkDump(int seq) {
        return new NlRequest(RTM_GETLINK, NlMessage.NLM_F_REQUEST | NlMessage.NLM_F_DUMP, seq)
                .header(new byte[IFINFOMSG_SIZE])
                .u32(IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS);
    }

    public static NlRequest getAddrDump(int seq) {
        return getAddrDump(seq, OptionalInt.empty());
    }

    /**
     * The addresses of this namespace, or of the namespace with {@code targetNsid} here: inet and inet6 dumps
     * take IFA_TARGET_NETNSID on a socket with strict checking, as `ip -target-netnsid` uses it.
     */
    public static NlRequest getAddrDump(int seq, OptionalInt targetNsid) {
        NlRequest r = new NlRequest(RTM_GETADDR, NlMessage.NLM_F_REQUEST | NlMessage.NLM_F_DUMP, seq)
                .header(new byte[IFADDRMSG_SIZE]);
        targetNsid.ifPresent(t -> r.u32(IFA_TARGET_NETNSID, t));
        return r;
    }

    /** rtm_table 0 (RT_TABLE_UNSPEC) dumps every table, local included, as `ip route show table all`. */
    public static NlRequest getRouteDump(int seq, int family) {
        byte[] rtmsg = new byte[RTMSG_SIZE];
        rtmsg[0] = (byte) family;
        return new NlRequest(RTM_GETROUTE, NlMessage.NLM_F_REQUEST | NlMessage.NLM_F_DUMP, seq).header(rtmsg);
    }

    public static NlRequest getNeighDump(int seq) {
        return new NlRequest(RTM_GETNEIGH, NlMessage.NLM_F_REQUEST | NlMessage.NLM_F_DUMP, seq)
                .header(new byte[NDMSG_SIZE]);
    }

    /** Dumps the nsids of this namespace, or of the namespace with {@code targetNsid} here. */
    public static NlRequest getNsidDump(int seq, OptionalInt targetNsid) {
        NlRequest r = new NlRequest(RTM_GETNSID, NlMessage.NLM_F_REQUEST | NlMessage.NLM_F_DUMP, seq)
                .header(new byte[RTGENMSG_SIZE]);
        targetNsid.ifPresent(t -> r.u32(NETNSA_TARGET_NSID, t));
        return r;
    }

    static NlRequest getNsid(int seq, NetnsHandle peer) {
        return new NlRequest(RTM_GETNSID, NlMessage.NLM_F_REQUEST, seq)
                .header(new byte[RTGENMSG_SIZE])
                .u32(NETNSA_FD, peer.fd());
    }

    /** RTM_NEWNSID with NETNSA_NSID -1: let the kernel pick, as `ip netns set NAME auto` does. */
    static NlRequest assignNsid(int seq, NetnsHandle peer) {
        return new NlRequest(RTM_NEWNSID, NlMessage.NLM_F_REQUEST | NlMessage.NLM_F_ACK | NlMessage.NLM_F_CREATE, seq)
                .header(new byte[RTGENMSG_SIZE])
                .u32(NETNSA_FD, peer.fd())
                .u32(NETNSA_NSID, NETNSA_NSID_NOT_ASSIGNED);
    }

    // ---- decoders ----

    // The decoders below work in offsets relative to the message; the public entry points move a
    // MalformedException's offset to the datagram the message came from (NlMessage.offset()), the
    // frame NlMessage.split reports its own errors in, so an offset always names the same byte.

    /** Decodes RTM_NEWLINK or RTM_DELLINK. Error offsets are relative to the message's datagram. */
    public static Link decodeLink(NlMessage m) throws MalformedException {
        try {
            return link(m);
        } catch (MalformedException e) {
            throw e.shifted(m.offset());
        }
    }

    private static Link link(NlMessage m) throws MalformedException {
        ByteBuffer b = m.raw();
        int base = NlMessage.HEADER_SIZE;
        requireLength(m, IFINFOMSG_SIZE);
        int arphrd = Short.toUnsignedInt(b.getShort(base + 2));
        int ifindex = b.getInt(base + 4);
        int flags = b.getInt(base + 8);
        Attributes a = Attributes.parse(b, base + IFINFOMSG_SIZE, b.limit());
        if (!a.has(IFLA_IFNAME)) {
            throw new MalformedException(base, "link " + ifindex + " without IFLA_IFNAME");
        }
        String name = a.string(IFLA_IFNAME);
        List<String> alt = a.has(IFLA_PROP_LIST) ? a.nested(IFLA_PROP_LIST).allStrings(IFLA_ALT_IFNAME) : List.of();
        int mtu = a.has(IFLA_MTU) ? a.u32(IFLA_MTU) : 0;
        int parent = a.has(IFLA_LINK) ? a.s32(IFLA_LINK) : 0;
        OptionalInt parentNsid =
                a.has(IFLA_LINK_NETNSID) ? OptionalInt.of(a.s32(IFLA_LINK_NETNSID)) : OptionalInt.empty();
        // The kernel leaves IFLA_LINK out when it equals the link's own ifindex (nla_put_iflink),
        // except with IFLA_LINK_NETNSID, where it forces it (rtnl_fill_link_netnsid): a parent in
        // another namespace may well have our ifindex there. Only a same-namespace self-reference
        // means "no parent".
        if (parent == ifindex && parentNsid.isEmpty()) {
            parent = 0;
        }
        int master = a.has(IFLA_MASTER) ? a.u32(IFLA_MASTER) : 0;
        HwAddr mac = a.has(IFLA_ADDRESS) ? HwAddr.of(a.bytes(IFLA_ADDRESS)) : null;
        int operstate = a.has(IFLA_OPERSTATE) ? a.u8(IFLA_OPERSTATE) : 0;

        String kind = null;
        LinkInfo info = null;
        LinkInfo slave = null;
        if (a.has(IFLA_LINKINFO)) {
            Attributes li = a.nested(IFLA_LINKINFO);
            if (li.has(IFLA_INFO_KIND)) {
                kind = li.string(IFLA_INFO_KIND);
                Attributes data = li.has(IFLA_INFO_DATA) ? li.nested(IFLA_INFO_DATA) : Attributes.empty();
                info = decodeInfo(kind, data);
            }
            if (li.has(IFLA_INFO_SLAVE_KIND) && "bond".equals(li.string(IFLA_INFO_SLAVE_KIND))) {
                Attributes sd = li.has(IFLA_INFO_SLAVE_DATA) ? li.nested(IFLA_INFO_SLAVE_DATA) : Attributes.empty();
                slave = decodeBondSlave(sd);
            }
        }
        if (kind == null) {
            kind = (flags & Link.IFF_LOOPBACK) != 0 || arphrd == Link.ARPHRD_LOOPBACK ? "loopback" : "device";
            info = new LinkInfo.Generic(kind);
        }
        return new Link(
                ifindex, name, alt, kind, info, slave, parent, parentNsid, master, mac, mtu, flags, operstate, arphrd);
    }

    private static LinkInfo decodeInfo(String kind, Attributes d) throws MalformedException {
        return switch (kind) {
            case "veth" -> new LinkInfo.Veth();
            case "bridge" -> new LinkInfo.Bridge();
            case "macvlan", "macvtap" ->
                new LinkInfo.Macvlan(d.has(IFLA_MACVLAN_MODE) ? d.u32(IFLA_MACVLAN_MODE) : LinkInfo.Macvlan.MODE_VEPA,
                        d.has(IFLA_MACVLAN_FLAGS) ? d.u16(IFLA_MACVLAN_FLAGS) : 0);
            case "ipvlan", "ipvtap" ->
                new LinkInfo.Ipvlan(d.has(IFLA_IPVLAN_MODE) ? d.u16(IFLA_IPVLAN_MODE) : LinkInfo.Ipvlan.MODE_L3,
                        d.has(IFLA_IPVLAN_FLAGS) ? d.u16(IFLA_IPVLAN_FLAGS) : 0);
            case "bond" ->
                new LinkInfo.Bond(d.has(IFLA_BOND_MODE) ? d.u8(IFLA_BOND_MODE) : 0,
                        d.has(IFLA_BOND_ACTIVE_SLAVE) ? d.u32(IFLA_BOND_ACTIVE_SLAVE) : 0);
            case "vlan" ->
                new LinkInfo.Vlan(d.has(IFLA_VLAN_ID) ? d.u16(IFLA_VLAN_ID) : 0,
                        d.has(IFLA_VLAN_PROTOCOL) ? d.be16(IFLA_VLAN_PROTOCOL) : 0x8100,
                        d.has(IFLA_VLAN_FLAGS) ? d.u32(IFLA_VLAN_FLAGS) : 0);
            case "ipoib" ->
                new LinkInfo.Ipoib(d.has(IFLA_IPOIB_PKEY) ? d.u16(IFLA_IPOIB_PKEY) : 0xffff,
                        d.has(IFLA_IPOIB_MODE) ? d.u16(IFLA_IPOIB_MODE) : 0,
                        d.has(IFLA_IPOIB_UMCAST) ? d.u16(IFLA_IPOIB_UMCAST) : 0);
            case "vxlan" ->
                new LinkInfo.Vxlan(d.has(IFLA_VXLAN_ID) ? OptionalInt.of(d.u32(IFLA_VXLAN_ID)) : OptionalInt.empty());
            default -> new LinkInfo.Generic(kind);
        };
    }

    private static LinkInfo.BondSlave decodeBondSlave(Attributes d) throws MalformedException {
        return new LinkInfo.BondSlave(
                d.has(IFLA_BOND_SLAVE_STATE) ? d.u8(IFLA_BOND_SLAVE_STATE) : LinkInfo.BondSlave.STATE_BACKUP,
                d.has(IFLA_BOND_SLAVE_MII_STATUS) ? d.u8(IFLA_BOND_SLAVE_MII_STATUS) : 0,
                d.has(IFLA_BOND_SLAVE_LINK_FAILURE_COUNT) ? d.u32(IFLA_BOND_SLAVE_LINK_FAILURE_COUNT) : 0,
                d.has(IFLA_BOND_SLAVE_PERM_HWADDR) ? HwAddr.of(d.bytes(IFLA_BOND_SLAVE_PERM_HWADDR)) : null,
                d.has(IFLA_BOND_SLAVE_QUEUE_ID) ? d.u16(IFLA_BOND_SLAVE_QUEUE_ID) : 0);
    }

    /** Decodes RTM_NEWADDR or RTM_DELADDR; null for families other than IPv4 and IPv6. */
    public static Address decodeAddress(NlMessage m) throws MalformedException {
        try {
            return address(m);
        } catch (MalformedException e) {
            throw e.shifted(m.offset());
        }
    }

    private static Address address(NlMessage m) throws MalformedException {
        ByteBuffer b = m.raw();
        int base = NlMessage.HEADER_SIZE;
        requireLength(m, IFADDRMSG_SIZE);
        int family = Byte.toUnsignedInt(b.get(base));
        int prefix = Byte.toUnsignedInt(b.get(base + 1));
        int flags8 = Byte.toUnsignedInt(b.get(base + 2));
        int scope = Byte.toUnsignedInt(b.get(base + 3));
        int ifindex = b.getInt(base + 4);
        if (family != AF_INET && family != AF_INET6) {
            return null;
        }
        Attributes a = Attributes.parse(b, base + IFADDRMSG_SIZE, b.limit());
        InetAddress local = a.has(IFA_LOCAL) ? address(a, IFA_LOCAL, family) : null;
        InetAddress addr = a.has(IFA_ADDRESS) ? address(a, IFA_ADDRESS, family) : null;
        InetAddress mine = local != null ? local : addr;
        if (mine == null) {
            throw new MalformedException(base, "address on ifindex " + ifindex + " without IFA_LOCAL or IFA_ADDRESS");
        }
        InetAddress peer = local != null && addr != null && !addr.equals(local) ? addr : null;
        int flags = a.has(IFA_FLAGS) ? a.u32(IFA_FLAGS) : flags8;
        String label = a.has(IFA_LABEL) ? a.string(IFA_LABEL) : null;
        return new Address(family, ifindex, mine, prefix, scope, flags, label, peer);
    }

    /** Decodes RTM_NEWROUTE or RTM_DELROUTE; null for families other than IPv4 and IPv6. */
    public static Route decodeRoute(NlMessage m) throws MalformedException {
        try {
            return route(m);
        } catch (MalformedException e) {
            throw e.shifted(m.offset());
        }
    }

    private static Route route(NlMessage m) throws MalformedException {
        ByteBuffer b = m.raw();
        int base = NlMessage.HEADER_SIZE;
        requireLength(m, RTMSG_SIZE);
        int family = Byte.toUnsignedInt(b.get(base));
        int dstLen = Byte.toUnsignedInt(b.get(base + 1));
        int tos = Byte.toUnsignedInt(b.get(base + 3));
        int table = Byte.toUnsignedInt(b.get(base + 4));
        int protocol = Byte.toUnsignedInt(b.get(base + 5));
        int scope = Byte.toUnsignedInt(b.get(base + 6));
        int type = Byte.toUnsignedInt(b.get(base + 7));
        if (family != AF_INET && family != AF_INET6) {
            return null;
        }
        Attributes a = Attributes.parse(b, base + RTMSG_SIZE, b.limit());
        if (a.has(RTA_TABLE)) {
            table = a.u32(RTA_TABLE);
        }
        InetAddress dst = a.has(RTA_DST) ? address(a, RTA_DST, family) : null;
        int maxLen = family == AF_INET ? 32 : 128;
        if (dstLen > maxLen) {
            throw new MalformedException(base + 1, "rtm_dst_len " + dstLen + " exceeds " + maxLen);
        }
        int oif = a.has(RTA_OIF) ? a.u32(RTA_OIF) : 0;
        InetAddress gw = a.has(RTA_GATEWAY) ? address(a, RTA_GATEWAY, family) : null;
        InetAddress prefsrc = a.has(RTA_PREFSRC) ? address(a, RTA_PREFSRC, family) : null;
        int prio = a.has(RTA_PRIORITY) ? a.u32(RTA_PRIORITY) : 0;
        List<Route.Nexthop> hops = List.of();
        if (a.has(RTA_MULTIPATH)) {
            int from = a.offsetOf(RTA_MULTIPATH) + 4;
            hops = decodeMultipath(b, from, from + a.length(RTA_MULTIPATH), family);
        }
        return new Route(family, table, type, protocol, scope, tos, dst, dstLen, oif, gw, prefsrc, prio, hops);
    }

    /**
     * The RTA_MULTIPATH payload in b[from, to): struct rtnexthop { u16 len; u8 flags; u8 hops; s32
     * ifindex; } followed by its attributes, repeated. Parsed in place, so that error offsets are
     * those of the message.
     */
    private static List<Route.Nexthop> decodeMultipath(ByteBuffer b, int from, int to, int family)
            throws MalformedException {
        List<Route.Nexthop> out = new ArrayList<>();
        int pos = from;
        while (to - pos >= 8) {
            int len = Short.toUnsignedInt(b.getShort(pos));
            if (len < 8 || len > to - pos) {
                throw new MalformedException(pos, "rtnexthop length " + len + " out of bounds");
            }
            int hops = Byte.toUnsignedInt(b.get(pos + 3));
            int ifindex = b.getInt(pos + 4);
            Attributes na = Attributes.parse(b, pos + 8, pos + len);
            InetAddress gw = na.has(RTA_GATEWAY) ? address(na, RTA_GATEWAY, family) : null;
            out.add(new Route.Nexthop(ifindex, gw, hops + 1));
            pos += NlMessage.align(len);
        }
        return out;
    }

    /** Decodes RTM_NEWNEIGH; null for families other than IPv4 and IPv6 (bridge FDB entries, ...). */
    public static Neighbor decodeNeighbor(NlMessage m) throws MalformedException {
        try {
            return neighbor(m);
        } catch (MalformedException e) {
            throw e.shifted(m.offset());
        }
    }

    private static Neighbor neighbor(NlMessage m) throws MalformedException {
        ByteBuffer b = m.raw();
        int base = NlMessage.HEADER_SIZE;
        requireLength(m, NDMSG_SIZE);
        int family = Byte.toUnsignedInt(b.get(base));
        int ifindex = b.getInt(base + 4);
        int state = Short.toUnsignedInt(b.getShort(base + 8));
        if (family != AF_INET && family != AF_INET6) {
            return null;
        }
        Attributes a = Attributes.parse(b, base + NDMSG_SIZE, b.limit());
        if (!a.has(NDA_DST)) {
            return null;
        }
        InetAddress dst = address(a, NDA_DST, family);
        HwAddr ll = a.has(NDA_LLADDR) ? HwAddr.of(a.bytes(NDA_LLADDR)) : null;
        return new Neighbor(family, ifindex, dst, ll, state);
    }

    /** Decodes RTM_NEWNSID / RTM_DELNSID. */
    public static NsidEntry decodeNsid(NlMessage m) throws MalformedException {
        try {
            return nsid(m);
        } catch (MalformedException e) {
            throw e.shifted(m.offset());
        }
    }

    private static NsidEntry nsid(NlMessage m) throws MalformedException {
        requireLength(m, 1);
        // The rtgenmsg is one byte; attributes start at NLMSG_ALIGN of it. A message of 17 to 19
        // bytes has room for none (and so lacks NETNSA_NSID), rather than a range past its end.
        int attrs = Math.min(NlMessage.HEADER_SIZE + RTGENMSG_SIZE, m.length());
        Attributes a = Attributes.parse(m.raw(), attrs, m.length());
        if (!a.has(NETNSA_NSID)) {
            throw new MalformedException(NlMessage.HEADER_SIZE, "nsid record without NETNSA_NSID");
        }
        OptionalInt current =
                a.has(NETNSA_CURRENT_NSID) ? OptionalInt.of(a.s32(NETNSA_CURRENT_NSID)) : OptionalInt.empty();
        return new NsidEntry(a.s32(NETNSA_NSID), current);
    }

    private static void requireLength(NlMessage m, int familyHeader) throws MalformedException {
        if (m.length() < NlMessage.HEADER_SIZE + familyHeader) {
            throw new MalformedException(0, "message type " + m.type() + " of " + m.length()
                    + " bytes is shorter than its " + familyHeader + "-byte family header");
        }
    }

    /** An address attribute whose size must match the message's family (4 or 16 bytes). */
    private static InetAddress address(Attributes a, int type, int family) throws MalformedException {
        int expected = family == AF_INET ? 4 : 16;
        if (a.length(type) != expected) {
            throw new MalformedException(a.offsetOf(type), "family " + family + " attribute " + type + " carries "
                    + a.length(type) + " bytes, expected " + expected);
        }
        return a.address(type);
    }
}
