package io.cmdemux.gid;

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.RandomAccess;

/**
 * A port's GID entries in index order, immutable, with a lookup by GID: resolving a request looks
 * up the packet's destination GID among thousands of entries, so it must not scan them.
 */
final class GidList extends AbstractList<GidEntry> implements RandomAccess {
    private static final GidEntry[] NONE = new GidEntry[0];
    private final GidEntry[] entries;
    private final Map<Gid, GidEntry[]> byGid;

    private GidList(GidEntry[] entries) {
        this.entries = entries;
        Map<Gid, List<GidEntry>> m = new HashMap<>();
        for (GidEntry e : entries) {
            m.computeIfAbsent(e.gid(), k -> new ArrayList<>(1)).add(e);
        }
        Map<Gid, GidEntry[]> frozen = new HashMap<>(m.size() * 2);
        m.forEach((k, v) -> frozen.put(k, v.toArray(NONE)));
        this.byGid = frozen;
    }

    static GidList of(List<GidEntry> gids) {
        if (gids instanceof GidList g) {
            return g;
        }
        GidEntry[] a = gids.toArray(NONE);
        for (GidEntry e : a) {
            java.util.Objects.requireNonNull(e, "GID entry");
        }
        Arrays.sort(a, Comparator.comparingInt(GidEntry::index));
        return new GidList(a);
    }

    /** Entries holding {@code gid}, lowest index first; empty when none. */
    List<GidEntry> withGid(Gid gid) {
        GidEntry[] a = byGid.get(gid);
        return a == null ? List.of() : Arrays.asList(a);
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
