package io.cmdemux.gid;

import io.cmdemux.namespaces.LinkRef;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
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

    public int defaultSlots() {
        return defaultSlots;
    }

    /** Adds that found no free slot (the kernel logs "unable to add gid ... error=-28"). */
    public long overflows() {
        return overflows;
    }

    private boolean isDefaultIndex(int i) {
        return i < defaultSlots;
    }

    /** ib_cache_gid_add: returns the slot the entry is in, or empty if it was refused or the table is full. */
    public OptionalInt add(Gid gid, GidType type, LinkRef ndev) {
        return add(gid, type, ndev, false);
    }

    /** The default-GID branch of ib_cache_gid_set_default_gid (IB_CACHE_GID_DEFAULT_MODE_SET). */
    public OptionalInt addDefault(Gid gid, GidType type, LinkRef ndev) {
        return add(gid, type, ndev, true);
    }

    private OptionalInt add(Gid gid, GidType type, LinkRef ndev, boolean isDefault) {
        Objects.requireNonNull(gid, "gid");
        if (gid.isZero()) {
            return OptionalInt.empty(); // IBTA 1.3 4.1.1 (6): the zero GID is never a valid entry
        }
        int found = -1;
        int empty = -1;
        for (int i = 0; i < slots.length && (found < 0 || empty < 0); i++) {
            Slot s = slots[i];
            if (s == null) {
                if (empty < 0 && isDefault == isDefaultIndex(i)) {
                    empty = i;
                }
                continue;
            }
            if (found >= 0 || s.type() != type || !Objects.equals(s.ndev(), ndev)) {
                continue;
            }
            if (isDefault) {
                if (isDefaultIndex(i)) {
                    found = i; // GID_ATTR_FIND_MASK_DEFAULT without MASK_GID
                }
            } else if (s.gid().equals(gid)) {
                found = i; // no MASK_DEFAULT: a default slot with the same GID counts
            }
        }
        if (found >= 0) {
            return OptionalInt.of(found);
        }
        if (empty < 0) {
            overflows++;
            return OptionalInt.empty();
        }
        slots[empty] = new Slot(gid, type, ndev);
        dirty.set(empty);
        return OptionalInt.of(empty);
    }

    /** ib_cache_gid_del: the lowest non-default slot with this GID, type and ndev. */
    public OptionalInt delete(Gid gid, GidType type, LinkRef ndev) {
        for (int i = defaultSlots; i < slots.length; i++) {
            Slot s = slots[i];
            if (s != null && s.type() == type && s.gid().equals(gid) && Objects.equals(s.ndev(), ndev)) {
                slots[i] = null;
                dirty.set(i);
                return OptionalInt.of(i);
            }
        }
        return OptionalInt.empty();
    }

    /** IB_CACHE_GID_DEFAULT_MODE_DELETE: the default slot of this type and ndev, whatever its GID. */
    public OptionalInt deleteDefault(GidType type, LinkRef ndev) {
        for (int i = 0; i < defaultSlots; i++) {
            Slot s = slots[i];
            if (s != null && s.type() == type && Objects.equals(s.ndev(), ndev)) {
                slots[i] = null;
                dirty.set(i);
                return OptionalInt.of(i);
            }
        }
        return OptionalInt.empty();
    }

    /** ib_cache_gid_del_all_netdev_gids: every slot of this ndev, default ones included. */
    public int deleteAllOf(LinkRef ndev) {
        int n = 0;
        for (int i = 0; i < slots.length; i++) {
            if (slots[i] != null && Objects.equals(slots[i].ndev(), ndev)) {
                slots[i] = null;
                dirty.set(i);
                n++;
            }
        }
        return n;
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
        int n = 0;
        for (Slot s : slots) {
            if (s != null) {
                n++;
            }
        }
        return n;
    }
}
