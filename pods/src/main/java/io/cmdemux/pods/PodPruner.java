package io.cmdemux.pods;

import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.NetnsState;
import io.cmdemux.namespaces.TopologySnapshot;
import java.util.HashSet;
import java.util.Set;

/**
 * Drops registrations whose pod is gone without a DEL (a crashed runtime, a node reboot of the
 * runtime but not of the daemon): whenever a namespace leaves the topology, every registration's
 * namespace file is checked again.
 */
public final class PodPruner {
    private final PodRegistry registry;
    private Set<NetnsId> last = Set.of();

    public PodPruner(PodRegistry registry) {
        this.registry = registry;
    }

    /** A watcher listener: runs on the watcher's thread, and only stats files when a namespace went away. */
    public synchronized void onTopology(TopologySnapshot snap) {
        Set<NetnsId> now = new HashSet<>();
        for (NetnsState s : snap.namespaces()) {
            now.add(s.id());
        }
        boolean someGone = !now.containsAll(last);
        last = now;
        if (someGone) {
            registry.prune();
        }
    }
}
