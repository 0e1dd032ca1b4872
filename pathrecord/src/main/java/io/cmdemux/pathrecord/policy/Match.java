package io.cmdemux.pathrecord.policy;

import io.cmdemux.pathrecord.PathQuery;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * What a rule applies to. Every field that is set must match; an empty match takes everything. A
 * constraint on a component the query does not carry (a tclass range and no TCLASS attribute) does
 * not match, and neither does a namespace or netdev constraint when the origin is unknown. There is
 * no path-use constraint: answers are cached per query, whatever path use asked (PathCache.Key).
 *
 * @param netns namespace names, "host", or inode numbers
 * @param netdev names of the net device that owns the query's (port, SGID, P_Key)
 */
public record Match(
        Set<String> netns,
        Set<String> netdev,
        String device,
        Integer port,
        Range tclass,
        Range serviceId,
        Range qosClass) {

    /** An inclusive range; service IDs compare unsigned. */
    public record Range(long lo, long hi) {
        public boolean contains(long v) {
            return Long.compareUnsigned(v, lo) >= 0 && Long.compareUnsigned(v, hi) <= 0;
        }

        @Override
        public String toString() {
            return lo == hi ? "0x" + Long.toHexString(lo) : "0x" + Long.toHexString(lo) + "-0x" + Long.toHexString(hi);
        }
    }

    public Match {
        netns = netns == null ? Set.of() : Set.copyOf(netns);
        netdev = netdev == null ? Set.of() : Set.copyOf(netdev);
    }

    public static Match any() {
        return new Match(null, null, null, null, null, null, null);
    }

    public boolean matches(PathQuery q, Origin o) {
        if (device != null && !device.equals(q.device())) {
            return false;
        }
        if (port != null && port != q.port()) {
            return false;
        }
        if (!netns.isEmpty()) {
            if (!o.known()) {
                return false;
            }
            boolean hit = (o.host() && netns.contains("host")) || netns.contains(Long.toString(o.netns().inode()));
            for (String n : o.netnsNames()) {
                hit |= netns.contains(n);
            }
            if (!hit) {
                return false;
            }
        }
        if (!netdev.isEmpty() && (o.netdev() == null || !netdev.contains(o.netdev()))) {
            return false;
        }
        if (tclass != null && (q.tclass().isEmpty() || !tclass.contains(q.tclass().getAsInt()))) {
            return false;
        }
        if (serviceId != null && (q.serviceId().isEmpty() || !serviceId.contains(q.serviceId().getAsLong()))) {
            return false;
        }
        if (qosClass != null && (q.qosClass().isEmpty() || !qosClass.contains(q.qosClass().getAsInt()))) {
            return false;
        }
        return true;
    }

    @Override
    public String toString() {
        List<String> p = new ArrayList<>();
        if (!netns.isEmpty()) {
            p.add("netns " + netns);
        }
        if (!netdev.isEmpty()) {
            p.add("netdev " + netdev);
        }
        if (device != null) {
            p.add("device " + device + (port == null ? "" : "/" + port));
        }
        if (tclass != null) {
            p.add("tclass " + tclass);
        }
        if (serviceId != null) {
            p.add("service ID " + serviceId);
        }
        if (qosClass != null) {
            p.add("QoS class " + qosClass);
        }
        return p.isEmpty() ? "everything" : String.join(", ", p);
    }
}
