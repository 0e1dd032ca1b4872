package io.cmdemux.service.serve;

import java.util.Arrays;

/**
 * The connections {@link Sessions} holds, in slots of primitive arrays, found by our local comm ID,
 * by the peer's (comm ID, CA GUID) and by trace ID through three open-addressing indexes of slot
 * numbers. A connection nobody answers (the common case under load: rdma_cm keeps a REQ until its
 * listener calls rdma_accept or rdma_reject) costs its bytes in these arrays and no object, so the
 * collector neither copies nor traces a million of them; objects are kept only for those answered
 * (see {@link #answered}).
 *
 * <p>Not thread-safe: its owner locks. A slot number is valid until {@link #remove}; a later
 * connection may take the same slot.
 */
final class SessionTable {
    static final int NONE = -1;
    private static final int INITIAL_SLOTS = 1 << 12;
    private static final int LIVE = 1 << 31;

    private final int maxSlots;
    private int size;
    /** Slots handed out so far; those below it that are free are on {@link #free}. */
    private int used;
    private int[] free = new int[0];
    private int freeCount;

    /** Ints, kept in longs so that the local and the trace ID lookups are one function. */
    private long[] localCommId = new long[0];
    private int[] remoteCommId = new int[0];
    private long[] remoteCaGuid = new long[0];
    private long[] traceId = new long[0];
    /** LIVE, and whatever the owner keeps in 31 bits (its state and the REQ's small fields). */
    private int[] flags = new int[0];
    private final Index byLocal = new Index() {
        @Override
        int hash(int slot) {
            return mix((int) localCommId[slot]);
        }
    };
    private final Index byRemote = new Index() {
        @Override
        int hash(int slot) {
            return remoteHash(remoteCommId[slot], remoteCaGuid[slot]);
        }
    };
    private final Index byTrace = new Index() {
        @Override
        int hash(int slot) {
            return mix(Long.hashCode(traceId[slot]));
        }
    };
    private final Column[] columns;

    /** A slot's other fields, kept by the owner in arrays that grow with the table. */
    interface Column {
        /** Makes room for {@code slots} slots, keeping the first {@code used}. */
        void grow(int slots, int used);
    }

    /** @param maxSlots at most this many connections at once; the arrays grow to it as needed */
    SessionTable(int maxSlots, Column... columns) {
        if (maxSlots < 1) {
            throw new IllegalArgumentException("maxSlots must be positive");
        }
        this.maxSlots = maxSlots;
        this.columns = columns;
    }

    int size() {
        return size;
    }

    /** How many slots the arrays have room for now. */
    int slots() {
        return flags.length;
    }

    /**
     * Takes a slot for a connection; the caller fills its columns. Keys need not be unique: a lookup
     * then finds one of those that share it.
     *
     * @return the slot, or {@link #NONE} when {@code maxSlots} connections are held
     */
    int add(int local, int remote, long remoteGuid, long trace, int ownerFlags) {
        if (size == maxSlots) {
            return NONE;
        }
        int slot;
        if (freeCount > 0) {
            slot = free[--freeCount];
        } else {
            if (used == flags.length) {
                grow();
            }
            slot = used++;
        }
        localCommId[slot] = local;
        remoteCommId[slot] = remote;
        remoteCaGuid[slot] = remoteGuid;
        traceId[slot] = trace;
        flags[slot] = LIVE | ownerFlags;
        byLocal.insert(slot);
        byRemote.insert(slot);
        byTrace.insert(slot);
        size++;
        return slot;
    }

    /** Frees a live slot. */
    void remove(int slot) {
        if ((flags[slot] & LIVE) == 0) {
            throw new IllegalStateException("slot " + slot + " is not in use");
        }
        byLocal.delete(slot);
        byRemote.delete(slot);
        byTrace.delete(slot);
        flags[slot] = 0;
        if (freeCount == free.length) {
            free = Arrays.copyOf(free, Math.max(16, free.length * 2));
        }
        free[freeCount++] = slot;
        size--;
    }

    int byLocal(int local) {
        return find(byLocal, localCommId, local, mix(local));
    }

    int byRemote(int remote, long remoteGuid) {
        int h = remoteHash(remote, remoteGuid);
        long[] t = byRemote.table;
        int mask = t.length - 1;
        for (int p = h & mask; t[p] != 0; p = (p + 1) & mask) {
            int s = (int) t[p] - 1;
            if ((int) (t[p] >>> 32) == h && remoteCommId[s] == remote && remoteCaGuid[s] == remoteGuid) {
                return s;
            }
        }
        return NONE;
    }

    int byTrace(long trace) {
        return find(byTrace, traceId, trace, mix(Long.hashCode(trace)));
    }

    /** The slot whose {@code keys} entry is {@code key}, through {@code index}; {@code h} is the key's hash. */
    private static int find(Index index, long[] keys, long key, int h) {
        long[] t = index.table;
        int mask = t.length - 1;
        for (int p = h & mask; t[p] != 0; p = (p + 1) & mask) {
            if ((int) (t[p] >>> 32) == h && keys[(int) t[p] - 1] == key) {
                return (int) t[p] - 1;
            }
        }
        return NONE;
    }

    int localCommId(int slot) {
        return (int) localCommId[slot];
    }

    int remoteCommId(int slot) {
        return remoteCommId[slot];
    }

    long remoteCaGuid(int slot) {
        return remoteCaGuid[slot];
    }

    long traceId(int slot) {
        return traceId[slot];
    }

    boolean live(int slot) {
        return slot >= 0 && slot < flags.length && (flags[slot] & LIVE) != 0;
    }

    /** The owner's 31 bits. */
    int flags(int slot) {
        return flags[slot] & ~LIVE;
    }

    void flags(int slot, int ownerFlags) {
        flags[slot] = LIVE | ownerFlags;
    }

    private void grow() {
        int n = (int) Math.min(maxSlots, Math.max(INITIAL_SLOTS, 2L * flags.length));
        localCommId = Arrays.copyOf(localCommId, n);
        remoteCommId = Arrays.copyOf(remoteCommId, n);
        remoteCaGuid = Arrays.copyOf(remoteCaGuid, n);
        traceId = Arrays.copyOf(traceId, n);
        flags = Arrays.copyOf(flags, n);
        for (Column c : columns) {
            c.grow(n, used);
        }
        // At most half full, so a probe stays short.
        int indexLength = Integer.highestOneBit(Math.max(1, n - 1)) << 2;
        byLocal.rebuild(indexLength);
        byRemote.rebuild(indexLength);
        byTrace.rebuild(indexLength);
    }

    /** murmur3's fmix32: the comm IDs of cm_alloc_id are a counter XOR a constant, whose low bits alone would cluster. */
    static int mix(int h) {
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        return h ^ (h >>> 16);
    }

    private static int remoteHash(int remote, long remoteGuid) {
        return mix(remote * 31 + Long.hashCode(remoteGuid));
    }

    /**
     * Linear probing over entries of the key's hash (high 32 bits) and the slot number + 1 (low 32
     * bits; 0 is empty), so that a probe past another key's entry reads no slot: the tables are far
     * larger than the caches, and a lookup that misses (every new REQ's duplicate check) would
     * otherwise cost a cache miss in the key arrays per probe. Deletion shifts back the entries
     * after the hole (Knuth's algorithm R), so no tombstones pile up under churn.
     */
    private abstract class Index {
        long[] table = new long[1];

        abstract int hash(int slot);

        void insert(int slot) {
            int h = hash(slot);
            int mask = table.length - 1;
            int p = h & mask;
            while (table[p] != 0) {
                p = (p + 1) & mask;
            }
            table[p] = (long) h << 32 | (slot + 1);
        }

        void delete(int slot) {
            int mask = table.length - 1;
            int p = hash(slot) & mask;
            while ((int) table[p] != slot + 1) {
                if (table[p] == 0) {
                    throw new IllegalStateException("slot " + slot + " is missing from its index");
                }
                p = (p + 1) & mask;
            }
            int hole = p;
            for (int q = (hole + 1) & mask; table[q] != 0; q = (q + 1) & mask) {
                int home = (int) (table[q] >>> 32) & mask;
                // The entry at q may fill the hole unless its home lies cyclically in (hole, q].
                if (((q - home) & mask) >= ((q - hole) & mask)) {
                    table[hole] = table[q];
                    hole = q;
                }
            }
            table[hole] = 0;
        }

        void rebuild(int length) {
            table = new long[length];
            for (int s = 0; s < used; s++) {
                if ((flags[s] & LIVE) != 0) {
                    insert(s);
                }
            }
        }
    }
}
