package io.cmdemux.dataplane.cm;

import java.util.Arrays;

/**
 * The connections {@link Sessions} holds, in slots of primitive arrays, found by our local comm ID,
 * by the peer's (comm ID, CA GUID) and by trace ID through three open-addressing indexes of slot
 * numbers. A connection nobody answers (the common case under load: rdma_cm keeps a REQ until its
 * listener calls rdma_accept or rdma_reject) costs its bytes in these arrays and no object, so the
 * collector neither copies nor traces a million of them; objects are kept only for those answered.
 *
 * <p>Not thread-safe: its owner locks. A slot number is valid until {@link #remove}; a later
 * connection may take the same slot.
 */
final class SessionTable {
    static final int NONE = -1;
    /** Slots are taken in chunks of 2^14: a chunk of Sessions' columns is some 2 MiB. */
    static final int CHUNK_SHIFT = 14;
    private static final int LIVE = 1 << 31;

    private final int maxSlots;
    private final int chunkShift;
    private final int chunkMask;
    private int size;
    /** Slots handed out so far; those below it that are free are on {@link #free}. */
    private int used;
    private int[] free = new int[0];
    private int freeCount;
    /** The keys, a chunk of slots each; never copied, so taking more slots moves nothing. */
    private Keys[] chunks = new Keys[0];
    private final KeyIndex byLocal = new KeyIndex() {
        @Override
        int hash(int slot) {
            return mix(localCommId(slot));
        }

        @Override
        boolean holds(int slot, long key) {
            return localCommId(slot) == (int) key;
        }
    };
    private final Index byRemote = new Index() {
        @Override
        int hash(int slot) {
            return remoteHash(remoteCommId(slot), remoteCaGuid(slot));
        }
    };
    private final KeyIndex byTrace = new KeyIndex() {
        @Override
        int hash(int slot) {
            return mix(Long.hashCode(traceId(slot)));
        }

        @Override
        boolean holds(int slot, long key) {
            return traceId(slot) == key;
        }
    };
    private final Column[] columns;

    /** One chunk's keys. */
    private static final class Keys {
        final int[] localCommId;
        final int[] remoteCommId;
        final long[] remoteCaGuid;
        final long[] traceId;
        /** LIVE, and whatever the owner keeps in 31 bits (its state and the REQ's small fields). */
        final int[] flags;

        Keys(int slots) {
            localCommId = new int[slots];
            remoteCommId = new int[slots];
            remoteCaGuid = new long[slots];
            traceId = new long[slots];
            flags = new int[slots];
        }
    }

    /** A slot's other fields, kept by the owner in chunks like the keys'. */
    interface Column {
        /**
         * Makes room for the slots of chunk {@code chunk}: from {@code chunk << chunkShift},
         * {@code 1 << chunkShift} of them.
         */
        void addChunk(int chunk);
    }

    /** @param maxSlots at most this many connections at once; chunks of slots are taken as needed */
    SessionTable(int maxSlots, Column... columns) {
        this(maxSlots, CHUNK_SHIFT, columns);
    }

    /**
     * The indexes are made for {@code maxSlots} at once (16 to 32 bytes each per slot): growing one
     * would re-insert every connection, a random memory access each, some seconds with the port
     * stopped for millions of them, and at the moment the load is highest.
     */
    SessionTable(int maxSlots, int chunkShift, Column... columns) {
        if (maxSlots < 1) {
            throw new IllegalArgumentException("maxSlots must be positive");
        }
        this.maxSlots = maxSlots;
        this.chunkShift = chunkShift;
        this.chunkMask = (1 << chunkShift) - 1;
        this.columns = columns;
        int length = indexLength(maxSlots);
        byLocal.table = new long[length];
        byRemote.table = new long[length];
        byTrace.table = new long[length];
    }

    /** The most connections a table is made for: its indexes, taken at start, are then 3 GiB. */
    static final int MAX_SLOTS = 1 << 26;

    /**
     * An index's entries for {@code maxSlots}: a power of two, so that it is at most half full and a probe stays short.
     */
    static int indexLength(int maxSlots) {
        return Integer.highestOneBit(Math.max(1, maxSlots - 1)) << 2;
    }

    int size() {
        return size;
    }

    /** How many slots the chunks have room for now. */
    int slots() {
        return chunks.length << chunkShift;
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
            if (used == slots()) {
                addChunk();
            }
            slot = used++;
        }
        Keys k = chunks[slot >>> chunkShift];
        int i = slot & chunkMask;
        k.localCommId[i] = local;
        k.remoteCommId[i] = remote;
        k.remoteCaGuid[i] = remoteGuid;
        k.traceId[i] = trace;
        k.flags[i] = LIVE | ownerFlags;
        byLocal.insert(slot);
        byRemote.insert(slot);
        byTrace.insert(slot);
        size++;
        return slot;
    }

    /** Frees a live slot. */
    void remove(int slot) {
        if (!live(slot)) {
            throw new IllegalStateException("slot " + slot + " is not in use");
        }
        byLocal.delete(slot);
        byRemote.delete(slot);
        byTrace.delete(slot);
        chunks[slot >>> chunkShift].flags[slot & chunkMask] = 0;
        if (freeCount == free.length) {
            free = Arrays.copyOf(free, Math.max(16, free.length * 2));
        }
        free[freeCount++] = slot;
        size--;
    }

    int byLocal(int local) {
        return byLocal.find(local, mix(local));
    }

    int byRemote(int remote, long remoteGuid) {
        int h = remoteHash(remote, remoteGuid);
        long[] t = byRemote.table;
        int mask = t.length - 1;
        for (int p = h & mask; t[p] != 0; p = (p + 1) & mask) {
            int s = (int) t[p] - 1;
            if ((int) (t[p] >>> 32) == h && remoteCommId(s) == remote && remoteCaGuid(s) == remoteGuid) {
                return s;
            }
        }
        return NONE;
    }

    int byTrace(long trace) {
        return byTrace.find(trace, mix(Long.hashCode(trace)));
    }

    /**
     * Reads the entry where a lookup of this peer key starts and returns it, to no other end: the
     * index is far larger than the caches, and a batch's requests that read theirs first, one after
     * another, wait for their misses together rather than each for its own (see Sessions.prefetch).
     */
    long touchRemote(int remote, long remoteGuid) {
        long[] t = byRemote.table;
        return t[remoteHash(remote, remoteGuid) & (t.length - 1)];
    }

    /** As {@link #touchRemote}, for where the local comm ID {@code local} will be inserted. */
    long touchLocal(int local) {
        long[] t = byLocal.table;
        return t[mix(local) & (t.length - 1)];
    }

    /** As {@link #touchRemote}, for where the trace ID {@code trace} will be inserted. */
    long touchTrace(long trace) {
        long[] t = byTrace.table;
        return t[mix(Long.hashCode(trace)) & (t.length - 1)];
    }

    int localCommId(int slot) {
        return chunks[slot >>> chunkShift].localCommId[slot & chunkMask];
    }

    int remoteCommId(int slot) {
        return chunks[slot >>> chunkShift].remoteCommId[slot & chunkMask];
    }

    long remoteCaGuid(int slot) {
        return chunks[slot >>> chunkShift].remoteCaGuid[slot & chunkMask];
    }

    long traceId(int slot) {
        return chunks[slot >>> chunkShift].traceId[slot & chunkMask];
    }

    boolean live(int slot) {
        return slot >= 0 && slot < slots() && (chunks[slot >>> chunkShift].flags[slot & chunkMask] & LIVE) != 0;
    }

    /** The owner's 31 bits. */
    int flags(int slot) {
        return chunks[slot >>> chunkShift].flags[slot & chunkMask] & ~LIVE;
    }

    void flags(int slot, int ownerFlags) {
        chunks[slot >>> chunkShift].flags[slot & chunkMask] = LIVE | ownerFlags;
    }

    private void addChunk() {
        int c = chunks.length;
        chunks = Arrays.copyOf(chunks, c + 1);
        chunks[c] = new Keys(1 << chunkShift);
        for (Column column : columns) {
            column.addChunk(c);
        }
    }

    /**
     * murmur3's fmix32: the comm IDs of cm_alloc_id are a counter XOR a constant, whose low bits alone would cluster.
     */
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
    private abstract static class Index {
        long[] table;

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
    }

    /** An index of a key of one part, found by {@link #find}. */
    private abstract static class KeyIndex extends Index {
        /** Whether the connection in {@code slot} has {@code key}. */
        abstract boolean holds(int slot, long key);

        /** The slot of a connection whose key is {@code key}, whose hash is {@code h}; or NONE. */
        int find(long key, int h) {
            int mask = table.length - 1;
            for (int p = h & mask; table[p] != 0; p = (p + 1) & mask) {
                if ((int) (table[p] >>> 32) == h && holds((int) table[p] - 1, key)) {
                    return (int) table[p] - 1;
                }
            }
            return NONE;
        }
    }
}
