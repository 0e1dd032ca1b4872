package io.cmdemux.namespaces;

import io.cmdemux.netdev.Route;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.List;
import java.util.RandomAccess;

/**
 * A namespace's routes in dump order, immutable, grouped by (table, family) as well: a reverse-path
 * check looks at one table of one family at a time, and the local table alone holds a route or two
 * for every address. A namespace has a handful of tables, so the groups are scanned, not hashed.
 */
final class RoutesByTable extends AbstractList<Route> implements RandomAccess {
    private static final int AF_INET = 2; // <sys/socket.h>

    private final Route[] routes;
    private final int[] groupTable;
    private final boolean[] groupInet;
    private final List<List<Route>> groups;

    private RoutesByTable(Route[] routes) {
        this.routes = routes;
        List<Integer> tables = new ArrayList<>();
        List<Boolean> inet = new ArrayList<>();
        List<List<Route>> lists = new ArrayList<>();
        for (Route r : routes) {
            int g = 0;
            while (g < tables.size() && (tables.get(g) != r.table() || inet.get(g) != (r.family() == AF_INET))) {
                g++;
            }
            if (g == tables.size()) {
                tables.add(r.table());
                inet.add(r.family() == AF_INET);
                lists.add(new ArrayList<>());
            }
            lists.get(g).add(r);
        }
        this.groupTable = new int[tables.size()];
        this.groupInet = new boolean[tables.size()];
        List<List<Route>> frozen = new ArrayList<>(lists.size());
        for (int g = 0; g < tables.size(); g++) {
            groupTable[g] = tables.get(g);
            groupInet[g] = inet.get(g);
            frozen.add(List.copyOf(lists.get(g)));
        }
        this.groups = List.copyOf(frozen);
    }

    static RoutesByTable of(List<Route> routes) {
        if (routes instanceof RoutesByTable r) {
            return r;
        }
        return new RoutesByTable(List.copyOf(routes).toArray(new Route[0]));
    }

    /** The routes of one table that are AF_INET ({@code inet}) or not (AF_INET6), in dump order. */
    List<Route> inTable(int table, boolean inet) {
        for (int g = 0; g < groupTable.length; g++) {
            if (groupTable[g] == table && groupInet[g] == inet) {
                return groups.get(g);
            }
        }
        return List.of();
    }

    @Override
    public Route get(int i) {
        return routes[i];
    }

    @Override
    public int size() {
        return routes.length;
    }
}
