package io.cmdemux.namespaces;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * An immutable multimap for indexes that are republished on every change (the snapshot's
 * cross-namespace indexes, a port's GIDs by value), split into shards by key hash so that the next
 * version copies only the shards its edits touch. One pod's event on a host of a thousand pods then
 * copies a few dozen entries instead of every address and link of the host, which is what made a
 * new generation cost milliseconds.
 */
public final class ShardedIndex<K, V> {
    private static final int SHARDS = 256;
    private static final ShardedIndex<?, ?> EMPTY = new ShardedIndex<>(emptyShards());

    private final Map<K, List<V>>[] shards;

    private ShardedIndex(Map<K, List<V>>[] shards) {
        this.shards = shards;
    }

    @SuppressWarnings("unchecked")
    public static <K, V> ShardedIndex<K, V> empty() {
        return (ShardedIndex<K, V>) EMPTY;
    }

    @SuppressWarnings("unchecked")
    private static <K, V> Map<K, List<V>>[] emptyShards() {
        Map<K, List<V>>[] s = new Map[SHARDS];
        Arrays.fill(s, Map.of());
        return s;
    }

    private static int shard(Object key) {
        int h = key.hashCode();
        return (h ^ (h >>> 16) ^ (h >>> 8)) & (SHARDS - 1);
    }

    /** The values under {@code key} in the order they were added; empty when there are none. */
    public List<V> get(K key) {
        return shards[shard(key)].getOrDefault(key, List.of());
    }

    /** Every key with its values, in no particular order. */
    public void forEach(BiConsumer<? super K, ? super List<V>> action) {
        for (Map<K, List<V>> m : shards) {
            m.forEach(action);
        }
    }

    /**
     * The keys whose values differ from {@code before}'s: added, removed or edited in the versions between. An
     * edit copies only the shards it touches and gives each key it touches a new list, so shards and lists are
     * compared by identity: the cost follows the edits, not the size. Against an unrelated index (no common
     * ancestor) every key of both counts as changed.
     */
    public Set<K> keysChangedSince(ShardedIndex<K, V> before) {
        Set<K> out = new HashSet<>();
        for (int i = 0; i < SHARDS; i++) {
            Map<K, List<V>> now = shards[i];
            Map<K, List<V>> then = before.shards[i];
            if (now == then) {
                continue;
            }
            now.forEach((k, v) -> {
                if (then.get(k) != v) {
                    out.add(k);
                }
            });
            for (K k : then.keySet()) {
                if (!now.containsKey(k)) {
                    out.add(k);
                }
            }
        }
        return out;
    }

    /** A builder of the next version; this one stays as it is. */
    public Editor<K, V> edit() {
        return new Editor<>(shards.clone());
    }

    public static final class Editor<K, V> {
        private final Map<K, List<V>>[] shards;
        private final boolean[] copied = new boolean[SHARDS];

        private Editor(Map<K, List<V>>[] shards) {
            this.shards = shards;
        }

        private Map<K, List<V>> writable(K key) {
            int i = shard(key);
            if (!copied[i]) {
                shards[i] = new HashMap<>(shards[i]);
                copied[i] = true;
            }
            return shards[i];
        }

        public void add(K key, V value) {
            Map<K, List<V>> m = writable(key);
            List<V> cur = m.get(key);
            List<V> next = new ArrayList<>(cur == null ? 1 : cur.size() + 1);
            if (cur != null) {
                next.addAll(cur);
            }
            next.add(value);
            m.put(key, Collections.unmodifiableList(next));
        }

        /** Removes one occurrence of {@code value} under {@code key}, if there is one. */
        public void remove(K key, V value) {
            Map<K, List<V>> m = writable(key);
            List<V> cur = m.get(key);
            if (cur == null) {
                return;
            }
            List<V> next = new ArrayList<>(cur);
            next.remove(value);
            if (next.isEmpty()) {
                m.remove(key);
            } else {
                m.put(key, Collections.unmodifiableList(next));
            }
        }

        /** The finished index. The editor must not be used afterwards. */
        public ShardedIndex<K, V> done() {
            return new ShardedIndex<>(shards);
        }
    }
}
