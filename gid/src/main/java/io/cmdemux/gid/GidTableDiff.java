package io.cmdemux.gid;

import io.cmdemux.namespaces.LinkRef;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Compares two GID tables of one port index by index, e.g. a kernel's real table (sysfs, or a
 * kernel-lab recording) against the table computed for the same topology and history. Entries
 * are equal when GID, type and ndev are; names and VLAN ids are derived and not compared.
 */
public final class GidTableDiff {
    private GidTableDiff() {}

    /** One index where the tables disagree; either side may be null (a free slot). */
    public record Difference(int index, GidEntry expected, GidEntry actual) {
        /** "index 3: expected ::ffff:10.0.0.5 RoCE v2 net1@4026532210, actual (free)". */
        public String describe() {
            return "index " + index + ": expected " + text(expected) + ", actual " + text(actual);
        }
    }

    /** The differences index by index, in index order; empty when the tables are identical. */
    public static List<Difference> compare(List<GidEntry> expected, List<GidEntry> actual) {
        TreeMap<Integer, GidEntry[]> both = new TreeMap<>();
        for (GidEntry e : expected) {
            both.computeIfAbsent(e.index(), k -> new GidEntry[2])[0] = e;
        }
        for (GidEntry e : actual) {
            both.computeIfAbsent(e.index(), k -> new GidEntry[2])[1] = e;
        }
        List<Difference> out = new ArrayList<>();
        for (Map.Entry<Integer, GidEntry[]> e : both.entrySet()) {
            GidEntry x = e.getValue()[0];
            GidEntry a = e.getValue()[1];
            if (!same(x, a)) {
                out.add(new Difference(e.getKey(), x, a));
            }
        }
        return out;
    }

    /**
     * The entries present on one side only, ignoring indices: what a diff by content (rather
     * than by slot) shows. A table that differs only in order has none.
     */
    public record ContentDiff(List<GidEntry> onlyExpected, List<GidEntry> onlyActual) {
        public boolean empty() {
            return onlyExpected.isEmpty() && onlyActual.isEmpty();
        }
    }

    public static ContentDiff compareContents(List<GidEntry> expected, List<GidEntry> actual) {
        Map<Key, Integer> count = new HashMap<>();
        for (GidEntry e : actual) {
            count.merge(key(e), 1, Integer::sum);
        }
        List<GidEntry> onlyExpected = new ArrayList<>();
        for (GidEntry e : expected) {
            Integer c = count.get(key(e));
            if (c == null || c == 0) {
                onlyExpected.add(e);
            } else {
                count.put(key(e), c - 1);
            }
        }
        Map<Key, Integer> count2 = new HashMap<>();
        for (GidEntry e : expected) {
            count2.merge(key(e), 1, Integer::sum);
        }
        List<GidEntry> onlyActual = new ArrayList<>();
        for (GidEntry e : actual) {
            Integer c = count2.get(key(e));
            if (c == null || c == 0) {
                onlyActual.add(e);
            } else {
                count2.put(key(e), c - 1);
            }
        }
        return new ContentDiff(List.copyOf(onlyExpected), List.copyOf(onlyActual));
    }

    private record Key(Gid gid, GidType type, LinkRef ndev) {}

    private static Key key(GidEntry e) {
        return new Key(e.gid(), e.type(), e.ndev());
    }

    private static boolean same(GidEntry a, GidEntry b) {
        if (a == null || b == null) {
            return a == b;
        }
        return a.gid().equals(b.gid()) && a.type() == b.type() && Objects.equals(a.ndev(), b.ndev());
    }

    static String text(GidEntry e) {
        if (e == null) {
            return "(free)";
        }
        String ndev = e.ndev() == null ? (e.ndevName() == null ? "-" : e.ndevName() + "@?")
                : (e.ndevName() == null ? "ifindex " + e.ndev().ifindex() : e.ndevName()) + "@" + e.ndev().netns();
        return e.gid() + " " + e.type().text() + " " + ndev;
    }
}
