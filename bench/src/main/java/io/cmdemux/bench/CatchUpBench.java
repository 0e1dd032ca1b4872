package io.cmdemux.bench;

import io.cmdemux.namespaces.NetnsDiscovery;
import io.cmdemux.namespaces.NetnsExecutor;
import io.cmdemux.namespaces.TopologyWatcher;
import io.cmdemux.netdev.NetlinkSocket;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What the tap pays per batch to decide on a current topology: TopologyWatcher.catchUp with nothing queued (the
 * usual case: the watcher's lock and one receive that finds nothing), against that receive alone on a netlink
 * socket of our own, in the same run. Needs root (the watcher reads every namespace); the host as it is.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class CatchUpBench {
    private NetnsExecutor exec;
    private TopologyWatcher watcher;
    private NetlinkSocket idle;

    @Setup(Level.Trial)
    public void start() throws IOException {
        exec = new NetnsExecutor(2);
        watcher = new TopologyWatcher(new NetnsDiscovery(), exec);
        watcher.start();
        idle = NetlinkSocket.open(NetlinkSocket.NETLINK_ROUTE, 0);
    }

    @TearDown(Level.Trial)
    public void stop() {
        idle.close();
        watcher.close();
        exec.close();
    }

    @Benchmark
    public boolean catchUpWithNothingQueued() {
        return watcher.catchUp();
    }

    @Benchmark
    public Object receiveThatFindsNothing() throws IOException {
        return idle.poll();
    }
}
