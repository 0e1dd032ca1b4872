package io.cmdemux.netdev;

import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * One net device as RTM_NEWLINK describes it.
 *
 * @param kind IFLA_INFO_KIND, or "device" / "loopback" for links without one
 * @param slaveInfo IFLA_INFO_SLAVE_DATA (a bond port), or null
 * @param parentIfindex IFLA_LINK, 0 when absent or equal to the link itself
 * @param parentNsid IFLA_LINK_NETNSID: the parent lives in the namespace with this nsid, as seen
 *     from the link's own namespace; empty when the parent is in the same namespace
 * @param masterIfindex IFLA_MASTER, or 0
 * @param mac IFLA_ADDRESS, or null
 */
public record Link(
        int ifindex,
        String name,
        List<String> altNames,
        String kind,
        LinkInfo info,
        LinkInfo slaveInfo,
        int parentIfindex,
        OptionalInt parentNsid,
        int masterIfindex,
        HwAddr mac,
        int mtu,
        int flags,
        int operstate,
        int arphrdType) {

    // <linux/if.h> net_device_flags
    public static final int IFF_UP = 0x1;
    public static final int IFF_BROADCAST = 0x2;
    public static final int IFF_LOOPBACK = 0x8;
    public static final int IFF_POINTOPOINT = 0x10;
    public static final int IFF_NOARP = 0x80;
    public static final int IFF_PROMISC = 0x100;
    public static final int IFF_MASTER = 0x400;
    public static final int IFF_SLAVE = 0x800;
    public static final int IFF_MULTICAST = 0x1000;
    public static final int IFF_LOWER_UP = 0x10000;
    // <linux/if_arp.h>
    public static final int ARPHRD_ETHER = 1;
    public static final int ARPHRD_INFINIBAND = 32;
    public static final int ARPHRD_LOOPBACK = 772;

    public Link {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(info, "info");
        altNames = List.copyOf(altNames);
        parentNsid = parentNsid == null ? OptionalInt.empty() : parentNsid;
    }

    /** Administratively up (IFF_UP), the flag the RDMA CM tests. */
    public boolean up() {
        return (flags & IFF_UP) != 0;
    }

    public boolean hasParent() {
        return parentIfindex != 0;
    }

    /** RFC 2863 operstate names, as iproute2 prints them. */
    public String operstateName() {
        return switch (operstate) {
            case 0 -> "UNKNOWN";
            case 1 -> "NOTPRESENT";
            case 2 -> "DOWN";
            case 3 -> "LOWERLAYERDOWN";
            case 4 -> "TESTING";
            case 5 -> "DORMANT";
            case 6 -> "UP";
            default -> "UNKNOWN";
        };
    }
}
