package io.cmdemux.gid;

import io.cmdemux.namespaces.NetnsId;
import java.util.List;
import java.util.Optional;

/**
 * An RDMA device (ib_device).
 *
 * @param soft a cmdemux soft RoCE port defined with --rdma-port, not a kernel device
 * @param netns the namespace the device belongs to; only meaningful in exclusive netns mode
 * @param busDevice the bus device behind a kernel device (its sysfs {@code device} link, a PCI address), null for
 *     a virtual one (rxe and siw, under /sys/devices/virtual) and for a soft port
 */
public record RdmaDevice(String name, long nodeGuid, boolean soft, NetnsId netns, List<RdmaPort> ports,
        String busDevice) {
    public RdmaDevice {
        ports = List.copyOf(ports);
    }

    public RdmaDevice(String name, long nodeGuid, boolean soft, NetnsId netns, List<RdmaPort> ports) {
        this(name, nodeGuid, soft, netns, ports, null);
    }

    /** Whether a NIC is behind it: a kernel device on a bus, not cmdemux's soft port nor rxe or siw. */
    public boolean hardware() {
        return !soft && busDevice != null;
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
