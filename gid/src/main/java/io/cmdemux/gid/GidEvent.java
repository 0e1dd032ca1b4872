package io.cmdemux.gid;

import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.netdev.HwAddr;
import java.net.InetAddress;
import java.util.Objects;

/**
 * One change to a RoCE port's GID table, as roce_gid_mgmt.c issues it. A history of these,
 * applied in order by {@link RoceGidRules#apply}, gives the table a kernel with the same history
 * shows; the kernel lab's recorded event orders can be replayed the same way.
 */
public sealed interface GidEvent {
    LinkRef ndev();

    /** An IP appeared on an eligible device (inetaddr/inet6addr NETDEV_UP, or an enumeration): update_gid(GID_ADD). */
    record AddIp(LinkRef ndev, InetAddress ip) implements GidEvent {
        public AddIp {
            Objects.requireNonNull(ndev, "ndev");
            Objects.requireNonNull(ip, "ip");
        }
    }

    /** An IP went away (inetaddr/inet6addr NETDEV_DOWN): update_gid(GID_DEL). */
    record DelIp(LinkRef ndev, InetAddress ip) implements GidEvent {
        public DelIp {
            Objects.requireNonNull(ndev, "ndev");
            Objects.requireNonNull(ip, "ip");
        }
    }

    /** add_default_gids: fe80::EUI-64 of the device's MAC into the reserved slots. */
    record SetDefault(LinkRef ndev, HwAddr mac) implements GidEvent {
        public SetDefault {
            Objects.requireNonNull(ndev, "ndev");
            Objects.requireNonNull(mac, "mac");
        }
    }

    /** del_default_gids (IB_CACHE_GID_DEFAULT_MODE_DELETE). */
    record DelDefault(LinkRef ndev) implements GidEvent {
        public DelDefault {
            Objects.requireNonNull(ndev, "ndev");
        }
    }

    /**
     * The device left (NETDEV_UNREGISTER, also on a namespace move), was unlinked from the port's
     * stack (NETDEV_CHANGEUPPER unlink), or changed its MAC (NETDEV_CHANGEADDR):
     * ib_cache_gid_del_all_netdev_gids.
     */
    record DelAll(LinkRef ndev) implements GidEvent {
        public DelAll {
            Objects.requireNonNull(ndev, "ndev");
        }
    }
}
