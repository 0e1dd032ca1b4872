package io.cmdemux.ingress.resolve;

import io.cmdemux.gid.RdmaTopology;
import io.cmdemux.namespaces.TopologySnapshot;
import java.util.Objects;

/** Everything a decision reads: net devices, RDMA ports and tables, listeners. Immutable. */
public record HostState(TopologySnapshot topology, RdmaTopology rdma, ListenerTable listeners) {
    public HostState {
        Objects.requireNonNull(topology, "topology");
        Objects.requireNonNull(rdma, "rdma");
        Objects.requireNonNull(listeners, "listeners");
    }

    /** Identifies this state for caching: a change to any part changes it. */
    public Generations generations() {
        return new Generations(topology.generation(), rdma.generation(), listeners.generation());
    }

    public record Generations(long topology, long rdma, long listeners) {}
}
