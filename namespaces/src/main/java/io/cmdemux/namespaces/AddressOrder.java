package io.cmdemux.namespaces;

import io.cmdemux.netdev.Address;
import java.util.List;

/**
 * Where the kernel puts an address that is added now, so that a namespace kept up to date from notifications
 * lists its addresses as a fresh RTM_GETADDR dump would (the daemon's answers to CLI verbs must match the
 * one-shot run's byte for byte). A dump walks the families in order (AF_INET, then AF_INET6), each family's
 * devices by ifindex, and each device's own list:
 * <ul>
 *   <li>IPv4, {@code __inet_insert_ifa} (net/ipv4/devinet.c): a secondary goes to the end of the device's list,
 *       a primary after the last primary whose scope is no narrower than its own (host-scoped ones first);
 *   <li>IPv6, {@code ipv6_link_dev_addr} (net/ipv6/addrconf.c): before the first address whose scope is no
 *       wider than its own, so the widest scope comes first and, within a scope, the newest.
 * </ul>
 * Checked against this machine's kernel (6.18): TopologyWatcherAsRootTest applies a sequence of changes and
 * compares with a fresh dump. An address the kernel configures by itself is announced only when its duplicate
 * address detection ends, a second or so after it took its place in the list: the watcher reads the addresses
 * again when a link becomes ready for IPv6, which covers the link's own link-local address, but not addresses made
 * later from a router advertisement (SLAAC, temporary addresses), which it lists from their announcement on, and
 * another address of the same scope on that device added meanwhile may then be listed on their other side until
 * the namespace is dumped again.
 */
final class AddressOrder {
    private static final int AF_INET = 2;
    private static final int AF_INET6 = 10;

    private AddressOrder() {}

    /** The index in {@code list} (a dump's order) at which {@code added} belongs. */
    static int position(List<Address> list, Address added) {
        int start = 0;
        while (start < list.size() && before(list.get(start), added)) {
            start++;
        }
        int end = start;
        while (end < list.size() && sameGroup(list.get(end), added)) {
            end++;
        }
        if (added.family() == AF_INET) {
            if ((added.flags() & Address.IFA_F_SECONDARY) != 0) {
                return end;
            }
            int at = start; // no primary as wide: the head of the device's list
            for (int i = start; i < end; i++) {
                Address x = list.get(i);
                if ((x.flags() & Address.IFA_F_SECONDARY) == 0 && added.scope() <= x.scope()) {
                    at = i + 1;
                }
            }
            return at;
        }
        if (added.family() == AF_INET6) {
            // RT scopes grow as IPv6 scopes narrow (universe 0, site 200, link 253, host 254).
            for (int i = start; i < end; i++) {
                if (list.get(i).scope() >= added.scope()) {
                    return i;
                }
            }
        }
        return end;
    }

    private static boolean before(Address x, Address added) {
        int f = Integer.compare(rank(x.family()), rank(added.family()));
        return f < 0 || f == 0 && x.ifindex() < added.ifindex();
    }

    private static boolean sameGroup(Address x, Address added) {
        return x.family() == added.family() && x.ifindex() == added.ifindex();
    }

    private static int rank(int family) {
        return family == AF_INET ? 0 : family == AF_INET6 ? 1 : 2;
    }
}
