package io.cmdemux.gid;

import java.util.List;
import java.util.Optional;

/**
 * Every RDMA device with its ports and tables, plus the system-wide netns mode (ib_core's
 * netns_mode, `rdma system show netns`). Immutable; a new one per change, with its generation.
 */
public record RdmaTopology(long generation, NetnsMode netnsMode, List<RdmaDevice> devices) {
    public enum NetnsMode { SHARED, EXCLUSIVE }

    public RdmaTopology {
        devices = List.copyOf(devices);
    }

    public static RdmaTopology empty() {
        return new RdmaTopology(0, NetnsMode.SHARED, List.of());
    }

    public Optional<RdmaDevice> device(String name) {
        for (RdmaDevice d : devices) { // on every uncached resolve: no stream pipeline
            if (d.name().equals(name)) {
                return Optional.of(d);
            }
        }
        return Optional.empty();
    }

    public Optional<RdmaPort> port(String device, int port) {
        return device(device).flatMap(d -> d.port(port));
    }
}
