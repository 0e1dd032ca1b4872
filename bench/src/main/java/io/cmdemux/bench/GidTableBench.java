package io.cmdemux.bench;

import io.cmdemux.gid.GidEntry;
import io.cmdemux.gid.GidEvent;
import io.cmdemux.gid.RoceGidRules;
import io.cmdemux.gid.SoftPortSpec;
import io.cmdemux.gid.SoftRocePort;
import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.NetnsState;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.netdev.Address;
import io.cmdemux.netdev.HwAddr;
import io.cmdemux.netdev.InetAddresses;
import io.cmdemux.netdev.Link;
import io.cmdemux.netdev.LinkInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Issue 4: a soft RoCE port's GID table with N pod namespaces (a macvlan on the uplink each, an
 * IPv4 and a link-local address), after one address event in one pod. {@code incremental} is the
 * stateful table's update (what the daemon does on a watcher generation; each call adds or
 * removes one address, alternately); {@code fullRecompute} builds the table from scratch for
 * the same topology (enumeration, the cache.c slot rules, ndev names). Both in the same run.
 *
 * <p>Run: java -cp bench/target/classes:$(deps) org.openjdk.jmh.Main GidTableBench
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 6, time = 2)
@Measurement(iterations = 8, time = 2)
@Fork(1)
public class GidTableBench {
    /** Pods, each with one macvlan holding an IPv4 and a link-local address: 2 GIDs each. */
    @Param("1000")
    public int pods;

    private static final int TABLE = 4096; // room for every pod's two GIDs (rxe's 1024 would overflow at 1000 pods)
    private static final int FLAGS = Link.IFF_UP | Link.IFF_LOWER_UP | Link.IFF_BROADCAST | Link.IFF_MULTICAST;

    private TopologySnapshot without;
    private TopologySnapshot with;
    private NetnsState changed;
    private LinkRef uplink;
    private SoftRocePort port;
    private SoftPortSpec spec;
    private boolean flip;

    @Setup(Level.Trial)
    public void setUp() {
        NetnsId host = new NetnsId(4, 4026531840L);
        List<NetnsState> states = new ArrayList<>();
        TreeMap<Integer, Link> hostLinks = new TreeMap<>();
        hostLinks.put(1, new Link(1, "lo", List.of(), "loopback", new LinkInfo.Generic("loopback"), null, 0,
                OptionalInt.empty(), 0, HwAddr.parse("00:00:00:00:00:00"), 65536, Link.IFF_UP | Link.IFF_LOOPBACK, 0,
                Link.ARPHRD_LOOPBACK));
        hostLinks.put(2, new Link(2, "uplink", List.of(), "veth", new LinkInfo.Veth(), null, 3, OptionalInt.empty(), 0,
                HwAddr.parse("52:54:00:12:34:56"), 1500, FLAGS, 6, Link.ARPHRD_ETHER));
        Map<Integer, NetnsId> hostPeers = new java.util.HashMap<>();
        NetnsState hostState = new NetnsState(host, List.of(), true, -1, hostLinks, List.of(), List.of(), hostPeers);
        states.add(hostState);
        NetnsState target = null;
        for (int i = 0; i < pods; i++) {
            NetnsId id = new NetnsId(4, 4026532000L + i);
            TreeMap<Integer, Link> links = new TreeMap<>();
            String mac = String.format("02:00:00:00:%02x:%02x", i >> 8, i & 0xff);
            links.put(1, new Link(1, "lo", List.of(), "loopback", new LinkInfo.Generic("loopback"), null, 0,
                    OptionalInt.empty(), 0, HwAddr.parse("00:00:00:00:00:00"), 65536, Link.IFF_UP | Link.IFF_LOOPBACK,
                    0, Link.ARPHRD_LOOPBACK));
            links.put(2, new Link(2, "net1", List.of(), "macvlan",
                    new LinkInfo.Macvlan(LinkInfo.Macvlan.MODE_BRIDGE, 0), null, 2,
                    OptionalInt.of(0), 0, HwAddr.parse(mac), 1500, FLAGS, 6, Link.ARPHRD_ETHER));
            String v4 = String.format("10.%d.%d.%d", 100 + i / 62500, (i / 250) % 250, i % 250 + 1);
            String v6 = String.format("fe80::ff:fe00:%x", i);
            List<Address> addrs = List.of(
                    new Address(2, 2, InetAddresses.parse(v4), 16, 0, Address.IFA_F_PERMANENT, "net1", null),
                    new Address(10, 2, InetAddresses.parse(v6), 64, 253, Address.IFA_F_PERMANENT, null, null));
            NetnsState s = new NetnsState(id, List.of("pod" + i), false, i, links, addrs, List.of(), Map.of(0, host));
            states.add(s);
            if (i == pods / 2) {
                target = s;
            }
        }
        without = TopologySnapshot.of(1, host, states, List.of());
        List<Address> more = new ArrayList<>(target.addresses());
        more.add(new Address(2, 2, InetAddresses.parse("10.250.0.1"), 24, 0, Address.IFA_F_PERMANENT, "net1", null));
        changed = new NetnsState(target.id(), target.names(), false, target.hostNsid(), target.links(), more, List.of(),
                target.peers());
        with = without.with(2, List.of(changed), List.of());
        uplink = new LinkRef(host, 2);
        spec = new SoftPortSpec("soft0", "uplink", null, RoceGidRules.ROCE_V2_ONLY, TABLE);
        port = new SoftRocePort(spec);
        port.update(without);
        if (port.device().ports().get(0).gids().size() != 2 * pods + 1) {
            throw new IllegalStateException("expected " + (2 * pods + 1) + " GIDs, got "
                    + port.device().ports().get(0).gids().size());
        }
    }

    @Benchmark
    public List<GidEvent> incremental() {
        flip = !flip;
        return port.update(flip ? with : without);
    }

    /** What the watcher does per event before the GID table sees it: the next snapshot, one namespace changed. */
    @Benchmark
    public TopologySnapshot snapshotWith() {
        return without.with(2, List.of(changed), List.of());
    }

    @Benchmark
    public List<GidEntry> fullRecompute() {
        return RoceGidRules.compute(with, uplink, spec.types(), TABLE);
    }
}
