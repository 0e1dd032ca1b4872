package io.cmdemux.observer;

import io.cmdemux.gid.SysfsLayout;
import io.cmdemux.gid.SysfsReader;
import io.cmdemux.ingress.resolve.HostState;
import io.cmdemux.ingress.resolve.ListenerTable;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.namespaces.TopologyWatcher;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The host as the observer predicts on it: the watcher's live topology and the kernel's RDMA devices from sysfs.
 * sysfs is read again at a new topology generation, and at most a second after the last read otherwise, since
 * the kernel changes GID tables without a netlink message of their own (a RoCE GID follows its address, which
 * the watcher does see).
 */
public final class LiveHost implements Supplier<HostState> {
    static final long MAX_AGE_NANOS = 1_000_000_000L;

    private final Supplier<TopologySnapshot> topology;
    private final SysfsLayout sysfs;
    private final LongSupplier nanoTime;
    private HostState last;
    private long readAt;

    public LiveHost(TopologyWatcher watcher, SysfsLayout sysfs) {
        this(watcher::current, sysfs, System::nanoTime);
    }

    LiveHost(Supplier<TopologySnapshot> topology, SysfsLayout sysfs, LongSupplier nanoTime) {
        this.topology = topology;
        this.sysfs = sysfs;
        this.nanoTime = nanoTime;
    }

    @Override
    public synchronized HostState get() {
        TopologySnapshot snap = topology.get();
        long now = nanoTime.getAsLong();
        if (last == null || last.topology().generation() != snap.generation() || now - readAt > MAX_AGE_NANOS) {
            last = new HostState(snap, SysfsReader.read(sysfs, snap).topology(), ListenerTable.empty());
            readAt = now;
        }
        return last;
    }
}
