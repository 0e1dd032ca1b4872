package io.cmdemux.gid;

import io.cmdemux.namespaces.LinkRef;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * One port's GID table with the kernel's slot rules (drivers/infiniband/core/cache.c, struct
 * ib_gid_table). Mutable and not thread-safe: its owner serialises the calls, as the kernel's
 * table->lock does.
 *
 * <p>What it mirrors:
 * <ul>
 *   <li>the first {@code defaultSlots} indices are reserved for default GIDs
 *       (gid_table_reserve_default: one per supported GID type);</li>
 *   <li>an add first looks for an equal valid entry anywhere and does nothing if there is one,
 *       else takes the lowest free slot of the right kind (find_gid with pempty);</li>
 *   <li>a normal add matches on GID, type and ndev but not on "default", so an IP equal to a
 *       default GID on the same ndev is not added twice (ib_cache_gid_add's mask);</li>
 *   <li>a default add matches on type, ndev and "default" but not on the GID
 *       (ib_cache_gid_set_default_gid's mask);</li>
 *   <li>the zero GID is never added (__ib_cache_gid_add);</li>
 *   <li>a full table drops the add (-ENOSPC), which is counted.</li>
 * </ul>
 * A deleted RoCE slot is free again once nobody holds a reference to the entry
 * (free_gid_entry_locked). We assume no QP or AH holds one, so a delete frees the slot at once.
 */
public final class GidCache {
    /** A slot's content; ndev identity is the LinkRef, as the kernel's is the net_device pointer. */
    private record Slot(Gid gid, GidType type, LinkRef ndev) {}

    private final Slot[] slots;
    private final int defaultSlots;
    private final BitSet used = new BitSet();
    // Indexes over the slots, so that an event costs O(1) lookups instead of the kernel's linear
    // find_gid scan; they give the same answers: the lowest matching slot, the lowest free slot.
    private final Map<Slot, BitSet> byContent = new HashMap<>();
    private final Map<LinkRef, BitSet> byNdev = new HashMap<>();
    private final BitSet dirty = new BitSet();
    private long overflows;

    public GidCache(int size, int defaultSlots) {
        if (size <= 0) {
            throw new IllegalArgumentException("a GID table needs at least one slot, not " + size);
        }
        this.slots = new Slot[size];
        this.defaultSlots = Math.min(defaultSlots, Math.min(size, 32)); // is_gid_index_default: BIT(index), index < 32
    }

    public int size() {
        return slots.length;
    }

    /** Adds that found no free slot (the kernel logs "unable to add gid ... error=-28"). */
    public long overflows() {
        return overflows;
    }

    /** ib_cache_gid_add: returns the slot the entry is in, or empty if it was refused or the table is full. */
    public OptionalInt add(Gid gid, GidType type, LinkRef ndev) {
        Objects.requireNonNull(gid, "gid");
        if (gid.isZero()) {
            return OptionalInt.empty(); // IBTA 1.3 4.1.1 (6): the zero GID is never a valid entry
        }
        // No GID_ATTR_FIND_MASK_DEFAULT: an equal entry in a default slot counts too.
        BitSet same = byContent.get(new Slot(gid, type, ndev));
        if (same != null && !same.isEmpty()) {
            return OptionalInt.of(same.nextSetBit(0));
        }
        int empty = used.nextClearBit(defaultSlots);
        return empty < slots.length ? OptionalInt.of(put(empty, new Slot(gid, type, ndev))) : full();
    }

    /**
     * The default-GID branch of ib_cache_gid_set_default_gid (IB_CACHE_GID_DEFAULT_MODE_SET): its
     * mask is type, ndev and "default", not the GID, so a default entry of this type and ndev is
     * kept even if the MAC changed; only the reserved slots are used.
     */
    public OptionalInt addDefault(Gid gid, GidType type, LinkRef ndev) {
        Objects.requireNonNull(gid, "gid");
        if (gid.isZero()) {
            return OptionalInt.empty();
        }
        int empty = -1;
        for (int i = 0; i < defaultSlots; i++) {
            Slot s = slots[i];
            if (s == null) {
                if (empty < 0) {
                    empty = i;
                }
            } else if (s.type() == type && Objects.equals(s.ndev(), ndev)) {
                return OptionalInt.of(i);
            }
        }
        return empty >= 0 ? OptionalInt.of(put(empty, new Slot(gid, type, ndev))) : full();
    }

    private OptionalInt full() {
        overflows++;
        return OptionalInt.empty();
    }

    private int put(int i, Slot s) {
        slots[i] = s;
        used.set(i);
        dirty.set(i);
        byContent.computeIfAbsent(s, k -> new BitSet()).set(i);
        byNdev.computeIfAbsent(s.ndev(), k -> new BitSet()).set(i);
        return i;
    }

    private void free(int i) {
        Slot s = slots[i];
        slots[i] = null;
        used.clear(i);
        dirty.set(i);
        clear(byContent, s, i);
        clear(byNdev, s.ndev(), i);
    }

    private static <K> void clear(Map<K, BitSet> m, K key, int i) {
        BitSet b = m.get(key);
        if (b != null) {
            b.clear(i);
            if (b.isEmpty()) {
                m.remove(key);
            }
        }
    }

    /** ib_cache_gid_del: the lowest non-default slot with this GID, type and ndev. */
    public OptionalInt delete(Gid gid, GidType type, LinkRef ndev) {
        BitSet same = byContent.get(new Slot(gid, type, ndev));
        int i = same == null ? -1 : same.nextSetBit(defaultSlots);
        if (i < 0) {
            return OptionalInt.empty();
        }
        free(i);
        return OptionalInt.of(i);
    }

    /** IB_CACHE_GID_DEFAULT_MODE_DELETE: the default slot of this type and ndev, whatever its GID. */
    public OptionalInt deleteDefault(GidType type, LinkRef ndev) {
        for (int i = 0; i < defaultSlots; i++) {
            Slot s = slots[i];
            if (s != null && s.type() == type && Objects.equals(s.ndev(), ndev)) {
                free(i);
                return OptionalInt.of(i);
            }
        }
        return OptionalInt.empty();
    }

    /** ib_cache_gid_del_all_netdev_gids: every slot of this ndev, default ones included. */
    public int deleteAllOf(LinkRef ndev) {
        BitSet mine = byNdev.get(ndev);
        if (mine == null) {
            return 0;
        }
        BitSet copy = (BitSet) mine.clone();
        for (int i = copy.nextSetBit(0); i >= 0; i = copy.nextSetBit(i + 1)) {
            free(i);
        }
        return copy.cardinality();
    }

    /** The valid entries in index order, without names (see {@link RoceGidRules#named}). */
    public List<GidEntry> entries() {
        List<GidEntry> out = new ArrayList<>();
        for (int i = 0; i < slots.length; i++) {
            Slot s = slots[i];
            if (s != null) {
                out.add(new GidEntry(i, s.gid(), s.type(), s.ndev(), OptionalInt.empty()));
            }
        }
        return out;
    }

    /** The entry at one index, or null if the slot is free. */
    public GidEntry entry(int index) {
        Slot s = slots[index];
        return s == null ? null : new GidEntry(index, s.gid(), s.type(), s.ndev(), OptionalInt.empty());
    }

    /** The indices written or freed since the last call, so that a published copy can be patched. */
    public BitSet drainDirty() {
        BitSet out = (BitSet) dirty.clone();
        dirty.clear();
        return out;
    }

    public int used() {
        return used.cardinality();
    }
}
