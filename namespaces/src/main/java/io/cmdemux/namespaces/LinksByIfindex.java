package io.cmdemux.namespaces;

import io.cmdemux.netdev.Link;
import java.util.AbstractMap;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A namespace's links by ifindex, ascending, immutable. Every uncached resolve looks links up by
 * ifindex several times, so {@link #link(int)} is a binary search over a sorted int array, with no
 * boxing and no tree to walk; the sorted-map views are a TreeMap's.
 */
final class LinksByIfindex extends AbstractMap<Integer, Link> implements SortedMap<Integer, Link> {
    private final SortedMap<Integer, Link> sorted;
    private final int[] ifindexes;
    private final Link[] links;

    private LinksByIfindex(SortedMap<Integer, Link> sorted) {
        this.sorted = sorted;
        this.ifindexes = new int[sorted.size()];
        this.links = new Link[sorted.size()];
        int i = 0;
        for (Map.Entry<Integer, Link> e : sorted.entrySet()) {
            ifindexes[i] = e.getKey();
            links[i++] = e.getValue();
        }
    }

    static LinksByIfindex of(Map<Integer, Link> links) {
        if (links instanceof LinksByIfindex l) {
            return l;
        }
        return new LinksByIfindex(Collections.unmodifiableSortedMap(new TreeMap<>(links)));
    }

    /** The link with this ifindex, or null. */
    Link link(int ifindex) {
        int i = Arrays.binarySearch(ifindexes, ifindex);
        return i < 0 ? null : links[i];
    }

    @Override
    public Link get(Object key) {
        return key instanceof Integer ifindex ? link(ifindex) : null;
    }

    @Override
    public boolean containsKey(Object key) {
        return key instanceof Integer ifindex && Arrays.binarySearch(ifindexes, ifindex) >= 0;
    }

    @Override
    public int size() {
        return ifindexes.length;
    }

    @Override
    public Set<Entry<Integer, Link>> entrySet() {
        return sorted.entrySet();
    }

    @Override
    public Set<Integer> keySet() {
        return sorted.keySet();
    }

    @Override
    public Collection<Link> values() {
        return sorted.values();
    }

    @Override
    public Comparator<? super Integer> comparator() {
        return sorted.comparator();
    }

    @Override
    public SortedMap<Integer, Link> subMap(Integer fromKey, Integer toKey) {
        return sorted.subMap(fromKey, toKey);
    }

    @Override
    public SortedMap<Integer, Link> headMap(Integer toKey) {
        return sorted.headMap(toKey);
    }

    @Override
    public SortedMap<Integer, Link> tailMap(Integer fromKey) {
        return sorted.tailMap(fromKey);
    }

    @Override
    public Integer firstKey() {
        return sorted.firstKey();
    }

    @Override
    public Integer lastKey() {
        return sorted.lastKey();
    }
}
