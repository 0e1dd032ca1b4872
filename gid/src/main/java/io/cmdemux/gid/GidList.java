package io.cmdemux.gid;

import io.cmdemux.namespaces.ShardedIndex;
import java.util.AbstractList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.RandomAccess;

/**
 * A port's GID entries in index order, immutable, with a lookup by GID: resolving a request looks
 * up the packet's destination GID among thousands of entries, so it must not scan them. A soft
 * port republishes its table on every address event, so the next list shares the unchanged part
 * of the index with the one before it.
 */
final class GidList extends AbstractList<GidEntry> implements RandomAccess {
    private static final GidEntry[] NONE = new GidEntry[0];
    private static final Comparator<GidEntry> BY_INDEX = Comparator.comparingInt(GidEntry::index);
    private final GidEntry[] entries;
    private final ShardedIndex<Gid, GidEntry> byGid;

    private GidList(GidEntry[] entries, ShardedIndex<Gid, GidEntry> byGid) {
        this.entries = entries;
        this.byGid = byGid;
    }

    static GidList of(List<GidEntry> gids) {
        if (gids instanceof GidList g) {
            return g;
        }
        GidEntry[] a = gids.toArray(NONE);
        for (GidEntry e : a) {
            java.util.Objects.requireNonNull(e, "GID entry");
        }
        Arrays.sort(a, BY_INDEX);
        ShardedIndex.Editor<Gid, GidEntry> index = ShardedIndex.<Gid, GidEntry>empty().edit();
        for (GidEntry e : a) {
            index.add(e.gid(), e);
        }
        return new GidList(a, index.done());
    }

    /**
     * The list after {@code before}: {@code entries} (in index order) are the new table, which differs
     * from the old one by {@code removed} and {@code added}.
     */
    static GidList next(GidList before, GidEntry[] entries, Collection<GidEntry> removed, Collection<GidEntry> added) {
        ShardedIndex.Editor<Gid, GidEntry> index = before.byGid.edit();
        for (GidEntry e : removed) {
            index.remove(e.gid(), e);
        }
        for (GidEntry e : added) {
            index.add(e.gid(), e);
        }
        return new GidList(entries, index.done());
    }

    /** Entries holding {@code gid}, lowest index first; empty when none. */
    List<GidEntry> withGid(Gid gid) {
        List<GidEntry> l = byGid.get(gid);
        if (l.size() < 2) {
            return l;
        }
        // The same GID in two slots (the same IP in two pods) is rare; sort those few on the way out.
        GidEntry[] a = l.toArray(NONE);
        Arrays.sort(a, BY_INDEX);
        return List.of(a);
    }

    @Override
    public GidEntry get(int i) {
        return entries[i];
    }

    @Override
    public int size() {
        return entries.length;
    }
}
