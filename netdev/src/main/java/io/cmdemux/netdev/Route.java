package io.cmdemux.netdev;

import java.net.InetAddress;
import java.util.List;

/**
 * One route (RTM_NEWROUTE), as much of it as a reverse-path check needs.
 *
 * @param dst RTA_DST, or null for the default route (dstLen 0)
 * @param oif RTA_OIF, or 0 (multipath routes carry their devices in nexthops)
 */
public record Route(
        int family,
        int table,
        int type,
        int protocol,
        int scope,
        int tos,
        InetAddress dst,
        int dstLen,
        int oif,
        InetAddress gateway,
        InetAddress prefsrc,
        int priority,
        List<Nexthop> nexthops) {
    // <linux/rtnetlink.h>
    public static final int RT_TABLE_MAIN = 254;
    public static final int RT_TABLE_LOCAL = 255;
    public static final int RTN_UNICAST = 1;
    public static final int RTN_LOCAL = 2;
    public static final int RTN_BROADCAST = 3;
    public static final int RTN_ANYCAST = 4;
    public static final int RTN_MULTICAST = 5;
    public static final int RTN_BLACKHOLE = 6;
    public static final int RTN_UNREACHABLE = 7;
    public static final int RTN_PROHIBIT = 8;

    public Route {
        nexthops = List.copyOf(nexthops);
    }

    /** One leg of a multipath route (struct rtnexthop). */
    public record Nexthop(int ifindex, InetAddress gateway, int weight) {}
}
