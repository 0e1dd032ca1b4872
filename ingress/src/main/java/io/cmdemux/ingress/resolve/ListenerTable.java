package io.cmdemux.ingress.resolve;

import io.cmdemux.ingress.wire.PortSpace;

import io.cmdemux.namespaces.NetnsId;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/** Every listener on the host, grouped into the kernel's bind lists: (namespace, port space, port). Immutable. */
public final class ListenerTable {
    private static final ListenerTable EMPTY = new ListenerTable(0, List.of());

    private record BindKey(NetnsId netns, PortSpace ps, int port) {}

    private record PortKey(PortSpace ps, int port) {}

    private final long generation;
    private final List<Listener> all;
    private final Map<BindKey, List<Listener>> bindLists;
    private final Map<PortKey, List<Listener>> byPort;

    public ListenerTable(long generation, List<Listener> listeners) {
        this.generation = generation;
        this.all = List.copyOf(listeners);
        Map<BindKey, List<Listener>> m = new HashMap<>();
        for (Listener l : all) {
            m.computeIfAbsent(new BindKey(l.netns(), l.portSpace(), l.port()), k -> new ArrayList<>()).add(l);
        }
        // cma_bind_listen adds with hlist_add_head: the most recently bound listener is tried first.
        m.replaceAll((k, v) -> {
            v.sort(Comparator.comparingLong(Listener::bindOrder).reversed());
            return List.copyOf(v);
        });
        this.bindLists = m;
        Map<PortKey, List<Listener>> p = new HashMap<>();
        for (Listener l : all) {
            p.computeIfAbsent(new PortKey(l.portSpace(), l.port()), k -> new ArrayList<>()).add(l);
        }
        p.replaceAll((k, v) -> List.copyOf(v));
        this.byPort = p;
    }

    public static ListenerTable empty() {
        return EMPTY;
    }

    public long generation() {
        return generation;
    }

    public List<Listener> all() {
        return all;
    }

    /** cma_ps_find: the bind list, newest first; empty when there is none. */
    public List<Listener> bindList(NetnsId netns, PortSpace ps, int port) {
        return bindLists.getOrDefault(new BindKey(netns, ps, port), List.of());
    }

    /** Whether anyone on (ps, port), in any namespace, satisfies {@code filter}; stops at the first. */
    public Listener firstListening(PortSpace ps, int port, Predicate<Listener> filter) {
        for (Listener l : byPort.getOrDefault(new PortKey(ps, port), List.of())) {
            if (filter.test(l)) {
                return l;
            }
        }
        return null;
    }

    /** Listeners on (ps, port) in any namespace that satisfy {@code filter}. */
    public List<Listener> listening(PortSpace ps, int port, Predicate<Listener> filter) {
        List<Listener> out = new ArrayList<>();
        for (Listener l : byPort.getOrDefault(new PortKey(ps, port), List.of())) {
            if (filter.test(l)) {
                out.add(l);
            }
        }
        return out;
    }

    public ListenerTable with(long newGeneration, Listener added) {
        List<Listener> next = new ArrayList<>(all);
        next.add(added);
        return new ListenerTable(newGeneration, next);
    }

    public ListenerTable without(long newGeneration, Predicate<Listener> removed) {
        List<Listener> next = new ArrayList<>(all);
        next.removeIf(removed);
        return new ListenerTable(newGeneration, next);
    }
}
