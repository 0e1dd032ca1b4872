package io.cmdemux.cni;

import io.cmdemux.gid.RdmaDevice;
import io.cmdemux.gid.RdmaTopology;
import io.cmdemux.gid.SysfsLayout;
import io.cmdemux.gid.SysfsReader;
import io.cmdemux.namespaces.NetnsExecutor;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.namespaces.TopologyWatcher;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The daemon's state for the checks: the watcher's live topology, the soft ports' tables as the
 * daemon keeps them (the ones its demultiplexer acts on), and kernel devices read from sysfs at
 * each look, since the kernel changes their tables without telling the watcher.
 */
public final class LiveRdmaState implements RdmaState {
    private final TopologyWatcher watcher;
    private final Supplier<List<RdmaDevice>> softDevices;
    private final SysfsLayout sysfs;
    private final NetnsExecutor executor;

    /** @param softDevices the soft ports' current devices; they follow the watcher's generations synchronously */
    public LiveRdmaState(TopologyWatcher watcher, Supplier<List<RdmaDevice>> softDevices, SysfsLayout sysfs,
            NetnsExecutor executor) {
        this.watcher = watcher;
        this.softDevices = softDevices;
        this.sysfs = sysfs;
        this.executor = executor;
    }

    @Override
    public RdmaView current() {
        TopologySnapshot snap = watcher.current();
        SysfsReader.Result kernel = SysfsReader.read(sysfs, snap);
        List<RdmaDevice> devices = new ArrayList<>(kernel.topology().devices());
        devices.addAll(softDevices.get());
        return new RdmaView(snap.generation(), snap, new RdmaTopology(snap.generation(),
                kernel.topology().netnsMode(), devices));
    }

    @Override
    public RdmaView awaitChange(RdmaView seen, long maxWaitMillis) throws InterruptedException {
        watcher.awaitNewer(seen.generation(), Math.max(1, maxWaitMillis));
        return current();
    }

    @Override
    public FreshNetns read(String netnsPath) throws IOException {
        FreshNetns fresh = NetnsReader.read(executor, netnsPath);
        if (watcher.current().namespace(fresh.id()) == null) {
            watcher.requestRescan(); // a runtime's brand-new namespace; do not wait for the periodic scan
        }
        return fresh;
    }
}
