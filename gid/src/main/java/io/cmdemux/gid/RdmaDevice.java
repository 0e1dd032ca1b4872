package io.cmdemux.gid;

import io.cmdemux.namespaces.NetnsId;
import java.util.List;
import java.util.Optional;

/**
 * An RDMA device (ib_device).
 *
 * @param soft a cmdemux soft RoCE port defined with --rdma-port, not a kernel device
 * @param netns the namespace the device belongs to; only meaningful in exclusive netns mode
 */
public record RdmaDevice(String name, long nodeGuid, boolean soft, NetnsId netns, List<RdmaPort> ports) {
    public RdmaDevice {
        ports = List.copyOf(ports);
    }

    public Optional<RdmaPort> port(int number) {
        for (RdmaPort p : ports) { // on every uncached resolve: no stream pipeline
            if (p.number() == number) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }
}
