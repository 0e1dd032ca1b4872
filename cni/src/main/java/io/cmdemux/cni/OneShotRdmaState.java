package io.cmdemux.cni;

import io.cmdemux.gid.RdmaDevice;
import io.cmdemux.gid.RdmaTopology;
import io.cmdemux.gid.SoftPortSpec;
import io.cmdemux.gid.SoftRocePort;
import io.cmdemux.gid.SysfsLayout;
import io.cmdemux.gid.SysfsReader;
import io.cmdemux.namespaces.DiscoveredNetns;
import io.cmdemux.namespaces.LiveDumper;
import io.cmdemux.namespaces.NamespaceDump;
import io.cmdemux.namespaces.NetnsDiscovery;
import io.cmdemux.namespaces.NetnsExecutor;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.netdev.RtnlClient;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The checks' state without the daemon: the whole host read now, kernel devices from sysfs, and
 * the network's soft ports (rdma.softPorts) computed as a device registered now would have them.
 * Each look reads everything again. The pod's namespace is read even where discovery would not
 * find it (a bind mount outside /run/netns with no process in it yet).
 */
final class OneShotRdmaState implements RdmaState, AutoCloseable {
    private final List<SoftPortSpec> softPorts;
    private final String podNetns;
    private final NetnsExecutor executor = new NetnsExecutor(2);
    private long generation;

    OneShotRdmaState(List<SoftPortSpec> softPorts, String podNetns) {
        this.softPorts = List.copyOf(softPorts);
        this.podNetns = podNetns;
    }

    @Override
    public RdmaView current() throws IOException {
        NetnsDiscovery.Scan scan = new NetnsDiscovery().scan();
        scan = withPod(scan);
        List<NamespaceDump> dumps;
        try (RtnlClient host = RtnlClient.open()) {
            dumps = new LiveDumper(executor, host).dumpAll(scan);
        }
        generation++;
        TopologySnapshot snap = TopologySnapshot.build(generation, scan.self(), dumps);
        SysfsReader.Result kernel = SysfsReader.read(SysfsLayout.live(SysfsLayout.LIVE_ROOT), snap);
        List<RdmaDevice> devices = new ArrayList<>(kernel.topology().devices());
        for (SoftPortSpec s : softPorts) {
            if (devices.stream().noneMatch(d -> d.name().equals(s.name()))) {
                devices.add(SoftRocePort.compute(s, snap));
            }
        }
        return new RdmaView(generation, snap, new RdmaTopology(generation, kernel.topology().netnsMode(), devices));
    }

    private NetnsDiscovery.Scan withPod(NetnsDiscovery.Scan scan) throws IOException {
        if (podNetns == null) {
            return scan;
        }
        NetnsId pod = NetnsDiscovery.idOf(Path.of(podNetns));
        if (scan.namespaces().stream().anyMatch(d -> d.id().equals(pod))) {
            return scan;
        }
        List<DiscoveredNetns> all = new ArrayList<>(scan.namespaces());
        all.add(new DiscoveredNetns(pod, List.of(), podNetns, false));
        return new NetnsDiscovery.Scan(scan.self(), all, scan.unreadable());
    }

    @Override
    public RdmaView awaitChange(RdmaView seen, long maxWaitMillis) throws IOException, InterruptedException {
        Thread.sleep(Math.max(1, maxWaitMillis));
        return current();
    }

    @Override
    public FreshNetns read(String netnsPath) throws IOException {
        return NetnsReader.read(executor, netnsPath);
    }

    @Override
    public void close() {
        executor.close();
    }
}
