package io.cmdemux.ingress.resolve;

import io.cmdemux.namespaces.NetnsState;
import io.cmdemux.netdev.InetAddresses;
import io.cmdemux.netdev.Link;
import io.cmdemux.netdev.Route;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * cma.c validate_net_dev on a namespace's routes: a lookup from our address to the peer's with
 * oif = the net device must leave through that device. Since the fixes 27cfde795a96 (argument
 * order) and "Use output interface for net_dev check" (flowi4_oif), the kernel asks exactly that.
 */
final class RouteCheck {
    /** The default policy rules: local (pref 0), main (32766), default (32767); IPv6 has no default table. */
    private static final int[] V4_TABLES = {Route.RT_TABLE_LOCAL, Route.RT_TABLE_MAIN, 253};
    private static final int[] V6_TABLES = {Route.RT_TABLE_LOCAL, Route.RT_TABLE_MAIN};
    private static final int RTN_THROW = 9;

    /** @param why the reason in words, or null when the caller did not ask for it */
    record Result(boolean ok, String why) {}

    private static final Result OK = new Result(true, null);
    private static final Result NOT_OK = new Result(false, null);

    private RouteCheck() {}

    /** @param explain whether to say why; without it the answer is the same and no text is built */
    static Result validate(NetnsState ns, Link ndev, InetAddress ours, InetAddress peer, boolean explain) {
        if (ours == null || peer == null || (ours instanceof Inet4Address) != (peer instanceof Inet4Address)) {
            return new Result(false, "source and destination families differ");
        }
        return peer instanceof Inet4Address ? validate4(ns, ndev, (Inet4Address) ours, (Inet4Address) peer, explain)
                : validate6(ns, ndev, (Inet6Address) ours, (Inet6Address) peer, explain);
    }

    /** validate_ipv4_net_dev: address sanity, then fib_lookup with flowi4_oif = ndev. */
    private static Result validate4(NetnsState ns, Link ndev, Inet4Address ours, Inet4Address peer, boolean explain) {
        for (Inet4Address a : new Inet4Address[] {ours, peer}) {
            // Inet4Address.hashCode() is the address as an int: the first byte without a getAddress() copy.
            if (a.isMulticastAddress() || a.isLoopbackAddress() || (a.hashCode() >>> 24) == 0 || a.equals(BROADCAST)) {
                return new Result(false, InetAddresses.toText(a) + " is multicast, broadcast, zeronet or loopback");
            }
        }
        for (int table : V4_TABLES) {
            // fib_table_lookup: longest prefix first; a reject type ends the lookup before nexthops are looked at.
            for (Route r : candidates(ns, table, peer, 32)) {
                if (r.type() == Route.RTN_UNREACHABLE
                        || r.type() == Route.RTN_BLACKHOLE
                        || r.type() == Route.RTN_PROHIBIT) {
                    return explain ? new Result(false, describe(ns, r, table) + " rejects the lookup") : NOT_OK;
                }
                if (r.type() == RTN_THROW) {
                    break; // fib rules go on with the next table
                }
                if (leavesThrough(r, ndev.ifindex())) {
                    return explain ? new Result(true, describe(ns, r, table) + " leaves through " + ndev.name()) : OK;
                }
                // fib_lookup_good_nhc: a nexthop on another device does not satisfy flowi4_oif; try shorter prefixes
            }
        }
        return explain
                ? new Result(false,
                        "no route to " + InetAddresses.toText(peer) + " leaves through " + ndev.name()
                                + " in any table (fib_lookup with flowi4_oif=" + ndev.ifindex() + ")")
                : NOT_OK;
    }

    /**
     * rdma_resolve_ip → addr_resolve with the GID entry's net device as output interface, in its
     * namespace (set_addr_netns_by_gid_rcu): the lookup ib_cm makes to answer the requester
     * (ib_resolve_unicast_gid_dmac) and to use the REQ's path (roce_resolve_route_from_path).
     * IPv4: ip_route_output_key with flowi4_oif assumes an on-link destination when no route fits,
     * so only a device that is down (or the families) can fail it. IPv6: ip6_route_output with an
     * oif is strict (RT6_LOOKUP_F_IFACE): a route to the peer through that very device must exist.
     */
    static Result outputRoute(NetnsState ns, Link ndev, InetAddress ours, InetAddress peer, boolean explain) {
        if (ours == null || peer == null || (ours instanceof Inet4Address) != (peer instanceof Inet4Address)) {
            return new Result(false, "our GID and the peer's are of different families (IPv4 and IPv6): -EINVAL");
        }
        if (!ndev.up()) {
            return explain
                    ? new Result(
                            false, ndev.name() + " is down: the route lookup with it as output fails (-ENETUNREACH)")
                    : NOT_OK;
        }
        if (peer instanceof Inet4Address) {
            return explain
                    ? new Result(true,
                            "IPv4 with flowi4_oif=" + ndev.name() + ": a destination no route fits is taken as on-link")
                    : OK;
        }
        return validate6(ns, ndev, (Inet6Address) ours, (Inet6Address) peer, true, explain);
    }

    /** validate_ipv6_net_dev: rt6_lookup(daddr=peer, saddr=ours, oif, strict for link-local) must end on ndev. */
    private static Result validate6(NetnsState ns, Link ndev, Inet6Address ours, Inet6Address peer, boolean explain) {
        return validate6(ns, ndev, ours, peer, peer.isLinkLocalAddress(), explain);
    }

    /** An IPv6 lookup of the peer with oif = ndev; {@code strict} accepts only routes through ndev. */
    private static Result validate6(
            NetnsState ns, Link ndev, Inet6Address ours, Inet6Address peer, boolean strict, boolean explain) {
        for (int table : V6_TABLES) {
            List<Route> cands = candidates(ns, table, peer, 128);
            int i = 0;
            while (i < cands.size()) {
                int len = cands.get(i).dstLen();
                // One fib6 node: the routes with this prefix length, cands[start, i).
                int start = i;
                Route onOif = null;
                while (i < cands.size() && cands.get(i).dstLen() == len) {
                    Route r = cands.get(i++);
                    if (onOif == null && r.oif() == ndev.ifindex()) {
                        onOif = r;
                    }
                }
                // rt6_device_match: prefer a route on oif; strict (link-local) lookups accept nothing else.
                Route chosen = onOif;
                if (chosen == null && !strict) {
                    chosen = cands.get(start);
                }
                if (chosen == null) {
                    continue; // BACKTRACK to a shorter prefix
                }
                if (chosen.type() == Route.RTN_UNREACHABLE
                        || chosen.type() == Route.RTN_BLACKHOLE
                        || chosen.type() == Route.RTN_PROHIBIT) {
                    return explain
                            ? new Result(false,
                                    describe(ns, chosen, table) + " answers the lookup (ip6_null_entry, not "
                                            + ndev.name() + ")")
                            : NOT_OK;
                }
                if (chosen.oif() == ndev.ifindex() || leavesThrough(chosen, ndev.ifindex())) {
                    return explain
                            ? new Result(true, describe(ns, chosen, table) + " leaves through " + ndev.name())
                            : OK;
                }
                return explain
                        ? new Result(false,
                                describe(ns, chosen, table) + " leaves through ifindex " + chosen.oif() + ", not "
                                        + ndev.name())
                        : NOT_OK;
            }
        }
        return explain
                ? new Result(false,
                        "no IPv6 route to " + InetAddresses.toText(peer)
                                + (strict ? " on " + ndev.name() + " (link-local lookups are strict)" : ""))
                : NOT_OK;
    }

    private static final Inet4Address BROADCAST = (Inet4Address) InetAddresses.parse("255.255.255.255");

    private static final Comparator<Route> LONGEST_PREFIX_THEN_METRIC = Comparator.comparingInt(Route::dstLen)
            .reversed()
            .thenComparingLong(r -> Integer.toUnsignedLong(r.priority()));

    /** Routes of one table whose prefix holds {@code ip}: longest prefix first, then lowest metric. */
    private static List<Route> candidates(NetnsState ns, int table, InetAddress ip, int bits) {
        List<Route> out = new ArrayList<>(4);
        boolean v4 = ip instanceof Inet4Address;
        for (Route r : ns.routes(table, v4)) {
            // The flow's TOS is 0, so routes with a TOS selector never match (fib_table_lookup, fa_tos).
            if (r.tos() != 0) {
                continue;
            }
            if (r.dst() == null ? r.dstLen() == 0 : contains(r.dst(), r.dstLen(), ip, bits)) {
                out.add(r);
            }
        }
        if (out.size() > 1) {
            out.sort(LONGEST_PREFIX_THEN_METRIC);
        }
        return out;
    }

    /** Whether the first {@code len} bits of the two addresses agree. */
    static boolean contains(InetAddress net, int len, InetAddress ip, int bits) {
        if (net instanceof Inet4Address && ip instanceof Inet4Address) {
            if (len > 32) {
                return false;
            }
            // Inet4Address.hashCode() is the address as an int: no getAddress() copies on this per-route path.
            return len == 0 || ((net.hashCode() ^ ip.hashCode()) >>> (32 - len)) == 0;
        }
        byte[] a = net.getAddress();
        byte[] b = ip.getAddress();
        if (a.length != b.length || len > bits) {
            return false;
        }
        int full = len / 8;
        for (int i = 0; i < full; i++) {
            if (a[i] != b[i]) {
                return false;
            }
        }
        int rest = len % 8;
        if (rest == 0) {
            return true;
        }
        int mask = (0xff << (8 - rest)) & 0xff;
        return (a[full] & mask) == (b[full] & mask);
    }

    private static boolean leavesThrough(Route r, int ifindex) {
        if (r.oif() == ifindex) {
            return true;
        }
        for (Route.Nexthop h : r.nexthops()) {
            if (h.ifindex() == ifindex) {
                return true;
            }
        }
        return false;
    }

    private static String describe(NetnsState ns, Route r, int table) {
        String t = table == Route.RT_TABLE_LOCAL
                ? "local"
                : table == Route.RT_TABLE_MAIN ? "main" : Integer.toString(table);
        String dst = r.dst() == null ? "default" : InetAddresses.toText(r.dst()) + "/" + r.dstLen();
        Link dev = r.oif() == 0 ? null : ns.link(r.oif());
        String on = r.oif() == 0 ? "" : " dev " + (dev == null ? "#" + r.oif() : dev.name());
        return "route " + dst + on + " (table " + t + ", type " + r.type() + ")";
    }
}
