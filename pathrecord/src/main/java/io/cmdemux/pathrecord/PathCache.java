package io.cmdemux.pathrecord;

import com.github.benmanes.caffeine.cache.AsyncCache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import io.cmdemux.gid.Gid;
import io.cmdemux.namespaces.NetnsState;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.netdev.Address;
import io.cmdemux.netdev.Link;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * Answers by query, in Caffeine. Concurrent misses for one key share one source query; a failed
 * query is not kept. Entries live at most {@code ttl}; with {@code ttlPacketLifetimes} > 0, also at
 * most that many packet lifetimes of the shortest-lived record. The whole cache is flushed on an
 * address or link removal, a namespace move and a policy reload (ibacm's lesson: a removed address
 * can leave stale answers behind); the policy generation in the key keeps a reload exact even for
 * an answer in flight.
 */
public final class PathCache {
    /**
     * The cache key: (device, port, SGID, DGID, P_Key as a logical partition, tclass, service ID,
     * QoS class, policy generation), plus whether the path must be reversible, because the SA is
     * asked a different question then (UNIDIRECTIONAL against ALL/GMP). The membership bit is
     * masked off: 0x8001 and 0x0001 are one partition, and the kernel's own P_Key matching
     * (ib_find_cached_pkey) compares the low 15 bits too.
     */
    public record Key(
            String device,
            int port,
            Gid sgid,
            Gid dgid,
            int partition,
            OptionalInt tclass,
            OptionalLong serviceId,
            OptionalInt qosClass,
            boolean reversible,
            long policyGeneration) {

        public static Key of(PathQuery q, long policyGeneration) {
            return new Key(q.device(), q.port(), q.sgid(), q.dgid(),
                    q.pkey().isPresent() ? q.pkey().getAsInt() & 0x7fff : -1, q.tclass(), q.serviceId(), q.qosClass(),
                    q.reversible(), policyGeneration);
        }
    }

    /** Counters for `path stats` and metrics. */
    public record Stats(long hits, long misses, long flushes, long size) {}

    private final AsyncCache<Key, Answer> cache;
    private final AtomicLong hits = new AtomicLong();
    private final AtomicLong misses = new AtomicLong();
    private final AtomicLong flushes = new AtomicLong();

    /**
     * @param maxEntries the most answers kept
     * @param ttl how long an answer lives at most
     * @param ttlPacketLifetimes 0, or how many packet lifetimes of its records an answer may live
     */
    public PathCache(long maxEntries, Duration ttl, int ttlPacketLifetimes) {
        Objects.requireNonNull(ttl, "ttl");
        long maxNanos = ttl.toNanos();
        this.cache = Caffeine.newBuilder().maximumSize(maxEntries).expireAfter(new Expiry<Key, Answer>() {
            @Override
            public long expireAfterCreate(Key key, Answer a, long now) {
                if (ttlPacketLifetimes > 0 && a.paths() != null) {
                    return Math.min(maxNanos, a.paths().minPacketLifeTimeNanos() * ttlPacketLifetimes);
                }
                return maxNanos;
            }

            @Override
            public long expireAfterUpdate(Key key, Answer a, long now, long current) {
                return expireAfterCreate(key, a, now);
            }

            @Override
            public long expireAfterRead(Key key, Answer a, long now, long current) {
                return current;
            }
        }).buildAsync();
    }

    /**
     * The answer for {@code key}: a cached (or in-flight) one, else {@code compute}'s, which is then kept unless it
     * fails.
     */
    public Lookup get(Key key, Function<Key, CompletableFuture<Answer>> compute) {
        CompletableFuture<Answer> f = cache.getIfPresent(key);
        if (f != null) {
            hits.incrementAndGet();
            return new Lookup(f, true);
        }
        misses.incrementAndGet();
        return new Lookup(cache.get(key, (k, executor) -> compute.apply(k)), false);
    }

    /** An answer and whether it came from the cache. */
    public record Lookup(CompletableFuture<Answer> answer, boolean hit) {}

    /** Drops {@code key} if it still maps to {@code answer} (an answer that must not be kept). */
    public void forget(Key key, CompletableFuture<Answer> answer) {
        cache.asMap().remove(key, answer);
    }

    public void invalidateAll() {
        flushes.incrementAndGet();
        cache.synchronous().invalidateAll();
    }

    public Stats stats() {
        return new Stats(hits.get(), misses.get(), flushes.get(), cache.synchronous().estimatedSize());
    }

    /**
     * Flushes when the new topology lost an address or a link, or a link changed namespace, name
     * or P_Key: any of those can change the namespace a query is attributed to, or make an answer
     * for an address that is gone. Additions alone leave cached answers right.
     *
     * @return whether it flushed
     */
    public boolean onTopologyChange(TopologySnapshot before, TopologySnapshot after) {
        if (before == null || after == null) {
            return false;
        }
        String why = removalOrMove(before, after);
        if (why != null) {
            invalidateAll();
            return true;
        }
        return false;
    }

    /** Null when nothing was removed or moved; else what was, for the log. */
    public static String removalOrMove(TopologySnapshot before, TopologySnapshot after) {
        Map<String, String> linksAfter = new HashMap<>();
        Set<String> addrsAfter = new HashSet<>();
        index(after, linksAfter, addrsAfter);
        Map<String, String> linksBefore = new HashMap<>();
        Set<String> addrsBefore = new HashSet<>();
        index(before, linksBefore, addrsBefore);
        for (Map.Entry<String, String> e : linksBefore.entrySet()) {
            String now = linksAfter.get(e.getKey());
            if (now == null) {
                return "link " + e.getValue() + " is gone or moved";
            }
            if (!now.equals(e.getValue())) {
                return "link " + e.getValue() + " became " + now;
            }
        }
        for (String a : addrsBefore) {
            if (!addrsAfter.contains(a)) {
                return "address " + a + " was removed";
            }
        }
        return null;
    }

    /** Links by (namespace, ifindex) → name and P_Key; addresses as (namespace, ifindex, address). */
    private static void index(TopologySnapshot t, Map<String, String> links, Set<String> addrs) {
        for (NetnsState ns : t.namespaces()) {
            for (Link l : ns.links().values()) {
                String pkey = l.info() instanceof io.cmdemux.netdev.LinkInfo.Ipoib i
                        ? String.format(" (P_Key 0x%04x)", i.pkey())
                        : "";
                links.put(ns.id() + "#" + l.ifindex(), l.name() + "@" + ns.displayName() + pkey);
            }
            for (Address a : ns.addresses()) {
                addrs.add(ns.id() + "#" + a.ifindex() + "#" + a.address().getHostAddress());
            }
        }
    }
}
