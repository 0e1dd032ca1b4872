package io.cmdemux.control.server;

import io.cmdemux.control.protocol.ListenSpec;
import io.cmdemux.control.protocol.RequestRefused;
import io.cmdemux.control.protocol.Wire;
import io.cmdemux.ingress.resolve.Listener;
import io.cmdemux.ingress.resolve.ListenerTable;
import io.cmdemux.ingress.wire.PortSpace;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.NetnsState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongPredicate;

/**
 * Every consumer's listeners, published as an immutable {@link ListenerTable} with a new
 * generation on each change. Each listener belongs to one consumer; only that consumer can
 * remove it, and all of them go when it disconnects. Mutations take a short lock and do no I/O but
 * for a poll(2) that does not wait, so event loops may call them.
 */
final class ListenerRegistry {
    // The kernel's default net.ipv4.ip_local_port_range, which cma_alloc_any_port draws from.
    static final int EPHEMERAL_LOW = 32768;
    static final int EPHEMERAL_HIGH = 60999;

    private final Object lock = new Object();
    private final int maxPerConsumer;
    private final int maxPerNamespace;
    private volatile ListenerTable table = ListenerTable.empty();
    // guarded by lock
    private long generation;
    private long nextBindOrder = 1;
    // Written under lock; read without it by every delivery (ownerOf), which must not wait for a LISTEN's rebuild
    // of the table on an event loop that the scheduler may have put aside with the lock held (issue 20 §4).
    private final Map<Long, Long> ownerOf = new ConcurrentHashMap<>();
    private final Map<Long, Integer> countOf = new HashMap<>();
    private final Map<NetnsId, Integer> countIn = new HashMap<>();

    /**
     * @param maxPerNamespace every change rebuilds the table, so one namespace's consumers (up to
     *     the connection limit each) must not be able to grow it without bound
     */
    ListenerRegistry(int maxPerConsumer, int maxPerNamespace) {
        this.maxPerConsumer = maxPerConsumer;
        this.maxPerNamespace = maxPerNamespace;
    }

    ListenerTable table() {
        return table;
    }

    /**
     * LISTEN for {@code consumerId}, placed in {@code netns}: the caller's proven namespace.
     *
     * @param state that namespace in the current topology, or null when it is not there yet
     * @param hungUp whether a consumer's peer has closed, though its own event loop has not yet read the end of
     *     stream: a consumer that closes and at once listens again on a new connection, handled on another loop,
     *     finds its old listeners gone, as a kernel socket frees its port before close(2) returns
     */
    Listener listen(long consumerId, NetnsId netns, NetnsState state, ListenSpec spec, LongPredicate hungUp)
            throws RequestRefused {
        int boundIfindex = BindRules.checkAddress(spec, state);
        boolean afonly = BindRules.effectiveAfonly(spec);
        synchronized (lock) {
            if (countOf.getOrDefault(consumerId, 0) >= maxPerConsumer) {
                throw new RequestRefused(Wire.ENOSPC, "a consumer may hold at most " + maxPerConsumer + " listeners");
            }
            if (countIn.getOrDefault(netns, 0) >= maxPerNamespace) {
                throw new RequestRefused(Wire.ENOSPC, "a namespace may hold at most " + maxPerNamespace + " listeners");
            }
            ListenerTable t = table;
            int port = spec.port() == 0 ? ephemeralPort(t, netns, spec.portSpace()) : spec.port();
            Listener candidate = new Listener(netns, spec.portSpace(), port, BindRules.normalised(spec.address()),
                    afonly, boundIfindex, nextBindOrder, null, owner(consumerId));
            List<Listener> bound = t.bindList(netns, spec.portSpace(), port);
            try {
                BindRules.checkPort(bound, candidate);
            } catch (RequestRefused e) {
                if (!dropHungUp(bound, hungUp)) {
                    throw e;
                }
                t = table;
                BindRules.checkPort(t.bindList(netns, spec.portSpace(), port), candidate);
            }
            nextBindOrder++;
            ownerOf.put(candidate.bindOrder(), consumerId);
            countOf.merge(consumerId, 1, Integer::sum);
            countIn.merge(netns, 1, Integer::sum);
            table = t.with(++generation, candidate);
            return candidate;
        }
    }

    /** UNLISTEN: only the owner may remove a listener; anyone else learns nothing about it. */
    Listener unlisten(long consumerId, long listenerId) throws RequestRefused {
        synchronized (lock) {
            Long owner = ownerOf.get(listenerId);
            if (owner == null || owner != consumerId) {
                throw new RequestRefused(Wire.ENOENT, "you have no listener " + listenerId);
            }
            Listener gone = find(listenerId);
            ownerOf.remove(listenerId);
            countOf.merge(consumerId, -1, Integer::sum);
            if (gone != null) {
                countIn.merge(gone.netns(), -1, (a, b) -> a + b == 0 ? null : a + b);
            }
            table = table.without(++generation, l -> l.bindOrder() == listenerId);
            return gone;
        }
    }

    /** Removes every listener of a consumer that went away; returns how many there were. */
    int dropConsumer(long consumerId) {
        synchronized (lock) {
            Integer n = countOf.remove(consumerId);
            if (n == null || n == 0) {
                return 0;
            }
            ownerOf.values().removeIf(o -> o == consumerId);
            String owner = owner(consumerId);
            for (Listener l : table.all()) {
                if (owner.equals(l.owner())) {
                    countIn.merge(l.netns(), -1, (a, b) -> a + b == 0 ? null : a + b);
                }
            }
            table = table.without(++generation, l -> owner.equals(l.owner()));
            return n;
        }
    }

    /** Drops the listeners of every owner in {@code bound} whose peer has hung up; whether there was one. */
    private boolean dropHungUp(List<Listener> bound, LongPredicate hungUp) {
        Set<Long> owners = new LinkedHashSet<>();
        for (Listener l : bound) {
            owners.add(ownerOf.get(l.bindOrder()));
        }
        boolean dropped = false;
        for (long consumer : owners) {
            if (hungUp.test(consumer)) {
                dropped |= dropConsumer(consumer) > 0;
            }
        }
        return dropped;
    }

    /** The consumer that owns a listener now, or -1 when the listener is gone. */
    long ownerOf(long listenerId) {
        Long o = ownerOf.get(listenerId);
        return o == null ? -1 : o;
    }

    List<Listener> listenersOf(long consumerId) {
        String owner = owner(consumerId);
        List<Listener> out = new ArrayList<>();
        for (Listener l : table.all()) {
            if (owner.equals(l.owner())) {
                out.add(l);
            }
        }
        return out;
    }

    static String owner(long consumerId) {
        return "consumer-" + consumerId;
    }

    private Listener find(long listenerId) {
        for (Listener l : table.all()) {
            if (l.bindOrder() == listenerId) {
                return l;
            }
        }
        return null;
    }

    /** cma_alloc_any_port: a random start in the ephemeral range, then the first port with no bind list. */
    private static int ephemeralPort(ListenerTable t, NetnsId netns, PortSpace ps) throws RequestRefused {
        int range = EPHEMERAL_HIGH - EPHEMERAL_LOW + 1;
        int start = ThreadLocalRandom.current().nextInt(range);
        for (int i = 0; i < range; i++) {
            int port = EPHEMERAL_LOW + (start + i) % range;
            if (t.bindList(netns, ps, port).isEmpty()) {
                return port;
            }
        }
        throw new RequestRefused(Wire.EADDRNOTAVAIL, "no free ephemeral port in " + ps.cliName());
    }
}
