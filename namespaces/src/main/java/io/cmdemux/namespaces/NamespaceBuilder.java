package io.cmdemux.namespaces;

import io.cmdemux.netdev.Address;
import io.cmdemux.netdev.Link;
import io.cmdemux.netdev.MalformedException;
import io.cmdemux.netdev.NlMessage;
import io.cmdemux.netdev.NsidEntry;
import io.cmdemux.netdev.Route;
import io.cmdemux.netdev.Rtnl;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The mutable state of one namespace while dumps and notifications are applied to it. Dump
 * records and notifications use the same messages, so both go through {@link #apply}.
 */
final class NamespaceBuilder {
    /** Maps an nsid record of this namespace to the namespace it names, or null when unknown. */
    interface PeerResolver extends Function<NsidEntry, NetnsId> {}

    private final NetnsId id;
    private List<String> names;
    private final boolean host;
    private int hostNsid;
    private final TreeMap<Integer, Link> links = new TreeMap<>();
    private final Map<AddressKey, Address> addresses = new LinkedHashMap<>();
    private final Map<RouteKey, Route> routes = new LinkedHashMap<>();
    private final Map<Integer, NetnsId> peers = new HashMap<>();

    private record AddressKey(int ifindex, InetAddress address, int prefixLen) {}

    /** What makes two notifications talk about the same route. */
    private record RouteKey(
            int family,
            int table,
            int type,
            InetAddress dst,
            int dstLen,
            int tos,
            int priority,
            int oif,
            InetAddress gateway) {
        static RouteKey of(Route r) {
            return new RouteKey(
                    r.family(), r.table(), r.type(), r.dst(), r.dstLen(), r.tos(), r.priority(), r.oif(), r.gateway());
        }
    }

    NamespaceBuilder(NetnsId id, List<String> names, boolean host, int hostNsid) {
        this.id = id;
        this.names = List.copyOf(names);
        this.host = host;
        this.hostNsid = hostNsid;
    }

    NetnsId id() {
        return id;
    }

    List<String> names() {
        return names;
    }

    void names(List<String> newNames) {
        this.names = List.copyOf(newNames);
    }

    int hostNsid() {
        return hostNsid;
    }

    boolean host() {
        return host;
    }

    /**
     * A notification, as against a dump's message: a new address goes where the kernel put it
     * ({@link AddressOrder}), where a dump lists each in its place already.
     */
    void notify(NlMessage m, PeerResolver resolver) throws MalformedException {
        Address a = m.type() == Rtnl.RTM_NEWADDR ? Rtnl.decodeAddress(m) : null;
        if (a == null) {
            apply(m, resolver);
            return;
        }
        AddressKey k = new AddressKey(a.ifindex(), a.address(), a.prefixLen());
        Address old = addresses.get(k);
        if (old != null && (old.flags() & Address.IFA_F_SECONDARY) == (a.flags() & Address.IFA_F_SECONDARY)) {
            addresses.put(k, a); // flags or lifetimes changed: the kernel leaves it where it is
            return;
        }
        addresses.remove(k); // new, or a secondary promoted: placed again
        List<Address> list = new ArrayList<>(addresses.values());
        int at = AddressOrder.position(list, a);
        if (at == list.size()) {
            addresses.put(k, a);
            return;
        }
        list.add(at, a);
        addresses.clear();
        for (Address x : list) {
            addresses.put(new AddressKey(x.ifindex(), x.address(), x.prefixLen()), x);
        }
    }

    /** Applies one RTM_NEW / RTM_DEL message of any rtnetlink family we model; others are ignored. */
    void apply(NlMessage m, PeerResolver resolver) throws MalformedException {
        switch (m.type()) {
            case Rtnl.RTM_NEWLINK -> {
                Link l = Rtnl.decodeLink(m);
                links.put(l.ifindex(), l);
            }
            case Rtnl.RTM_DELLINK -> {
                int ifindex = Rtnl.decodeLink(m).ifindex();
                links.remove(ifindex);
                // The kernel drops a dead link's addresses and routes too; not all of that is notified.
                addresses.keySet().removeIf(k -> k.ifindex() == ifindex);
                routes.values().removeIf(r -> r.oif() == ifindex);
            }
            case Rtnl.RTM_NEWADDR -> {
                Address a = Rtnl.decodeAddress(m);
                if (a != null) {
                    addresses.put(new AddressKey(a.ifindex(), a.address(), a.prefixLen()), a);
                }
            }
            case Rtnl.RTM_DELADDR -> {
                Address a = Rtnl.decodeAddress(m);
                if (a != null) {
                    addresses.remove(new AddressKey(a.ifindex(), a.address(), a.prefixLen()));
                }
            }
            case Rtnl.RTM_NEWROUTE -> {
                Route r = Rtnl.decodeRoute(m);
                if (r != null) {
                    routes.put(RouteKey.of(r), r);
                }
            }
            case Rtnl.RTM_DELROUTE -> {
                Route r = Rtnl.decodeRoute(m);
                if (r != null) {
                    routes.remove(RouteKey.of(r));
                }
            }
            case Rtnl.RTM_NEWNSID -> {
                NsidEntry e = Rtnl.decodeNsid(m);
                NetnsId peer = resolver.apply(e);
                if (peer != null) {
                    peers.put(e.nsid(), peer);
                }
            }
            case Rtnl.RTM_DELNSID -> peers.remove(Rtnl.decodeNsid(m).nsid());
            default -> {
                // requests, DONE, errors and families we do not model carry no state
            }
        }
    }

    /**
     * Whether this RTM_NEWLINK makes a link ready for IPv6 autoconfiguration where it was not: up, and operstate
     * UP or UNKNOWN (the kernel's addrconf_link_ready, netif_oper_up). The kernel then adds the link's
     * link-local address, and lists it in a dump at once, tentative, but notifies it only when duplicate address
     * detection has ended, a second or more later; the caller reads the addresses again (issue 22: the daemon's
     * answers must be a dump's).
     */
    boolean startsAddrconf(NlMessage m) throws MalformedException {
        if (m.type() != Rtnl.RTM_NEWLINK) {
            return false;
        }
        Link now = Rtnl.decodeLink(m);
        Link before = links.get(now.ifindex());
        return addrconfReady(now) && (before == null || !addrconfReady(before));
    }

    private static boolean addrconfReady(Link l) {
        return l.up() && (l.operstate() == IF_OPER_UP || l.operstate() == IF_OPER_UNKNOWN);
    }

    private static final int IF_OPER_UNKNOWN = 0;
    private static final int IF_OPER_UP = 6;

    /** The addresses of a fresh RTM_GETADDR dump in place of these, in its order; nothing changes if one is bad. */
    void replaceAddresses(List<NlMessage> dump) throws MalformedException {
        List<Address> fresh = new ArrayList<>(dump.size());
        for (NlMessage m : dump) {
            Address a = m.type() == Rtnl.RTM_NEWADDR ? Rtnl.decodeAddress(m) : null;
            if (a != null) {
                fresh.add(a);
            }
        }
        addresses.clear();
        for (Address a : fresh) {
            addresses.put(new AddressKey(a.ifindex(), a.address(), a.prefixLen()), a);
        }
    }

    void clearPeers() {
        peers.clear();
    }

    /** Re-resolves nothing; callers replace the peer table wholesale after re-reading it. */
    void putPeer(int nsid, NetnsId peer) {
        peers.put(nsid, peer);
    }

    NetnsState toState() {
        return new NetnsState(id, names, host, hostNsid, new TreeMap<>(links), new ArrayList<>(addresses.values()),
                new ArrayList<>(routes.values()), peers);
    }
}
