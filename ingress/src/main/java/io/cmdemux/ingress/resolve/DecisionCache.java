package io.cmdemux.ingress.resolve;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.cmdemux.gid.Gid;
import io.cmdemux.netdev.HwAddr;
import java.net.InetAddress;
import java.util.OptionalInt;

/**
 * Remembers decisions. The key holds every input the resolver reads plus the generations of the
 * state it read them from, so an entry made under an older topology, GID table or listener set
 * can never be served: its key simply no longer occurs.
 */
public final class DecisionCache {
    /** Everything of PacketMeta the resolver reads: not the source port, not the comm ID. */
    record Key(
            String device,
            int port,
            NetworkType networkType,
            Gid dgid,
            Gid ourGid,
            int pkey,
            int bthPkey,
            long serviceId,
            int cmaVersion,
            int ipVersion,
            InetAddress dstIp,
            InetAddress srcIp,
            OptionalInt vlan,
            HwAddr dmac,
            boolean sidr,
            QpType qpType,
            Gid peerGid,
            Gid srcGid,
            ResolverMode mode,
            HostState.Generations generations) {

        static Key of(HostState state, PacketMeta m, ResolverMode mode) {
            return new Key(m.key().device(), m.key().port(), m.networkType(), m.dgid(), m.ourGid(), m.pkey(),
                    m.bthPkey(), m.serviceId(), m.cmaVersion(), m.ipVersion(), m.dstIp(), m.srcIp(), m.vlan(), m.dmac(),
                    m.sidr(), m.qpType(), m.peerGid(), m.srcGid(), mode, state.generations());
        }
    }

    private final Cache<Key, Decision> cache;
    private volatile HostState.Generations current;

    public DecisionCache(long maximumSize) {
        this.cache = Caffeine.newBuilder().maximumSize(maximumSize).recordStats().build();
    }

    public Decision resolve(HostState state, PacketMeta meta, ResolverMode mode) {
        HostState.Generations g = state.generations();
        if (!g.equals(current)) {
            // The old entries can never be hit again, and each one's trace, written only when read,
            // keeps the whole state it was decided on alive: drop them rather than wait for eviction.
            cache.invalidateAll();
            current = g;
        }
        return cache.get(Key.of(state, meta, mode), k -> Resolver.resolve(state, meta, mode));
    }

    public long hits() {
        return cache.stats().hitCount();
    }

    public long misses() {
        return cache.stats().missCount();
    }

    public long size() {
        return cache.estimatedSize();
    }
}
