package io.cmdemux.namespaces;

import io.cmdemux.netdev.Address;
import io.cmdemux.netdev.Link;
import io.cmdemux.netdev.Route;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;

/**
 * Everything known about one namespace at one moment. Immutable.
 *
 * @param hostNsid the nsid the host has for this namespace, -1 for none (for the host itself: the nsid
 *     it has for itself, which the kernel allows, usually none)
 * @param links by ifindex, ascending
 * @param peers this namespace's own nsid table: nsid here → the namespace it names
 */
public record NetnsState(
        NetnsId id,
        List<String> names,
        boolean host,
        int hostNsid,
        SortedMap<Integer, Link> links,
        List<Address> addresses,
        List<Route> routes,
        Map<Integer, NetnsId> peers) {

    public NetnsState {
        names = List.copyOf(names);
        links = LinksByIfindex.of(links);
        addresses = List.copyOf(addresses);
        routes = RoutesByTable.of(routes);
        peers = Map.copyOf(peers);
    }

    public Link link(int ifindex) {
        return ((LinksByIfindex) links).link(ifindex);
    }

    /** The routes of one table that are AF_INET ({@code inet}) or not (AF_INET6), in dump order. */
    public List<Route> routes(int table, boolean inet) {
        return ((RoutesByTable) routes).inTable(table, inet);
    }

    public Link linkByName(String name) {
        for (Link l : links.values()) {
            if (l.name().equals(name) || l.altNames().contains(name)) {
                return l;
            }
        }
        return null;
    }

    public List<Address> addressesOf(int ifindex) {
        return addresses.stream().filter(a -> a.ifindex() == ifindex).toList();
    }

    /** "pod1" or "4026532210" when the namespace has no name. */
    public String displayName() {
        if (host) {
            return names.isEmpty() ? "host" : names.get(0);
        }
        return names.isEmpty() ? Long.toString(id.inode()) : names.get(0);
    }
}
