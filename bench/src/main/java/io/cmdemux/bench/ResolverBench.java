package io.cmdemux.bench;

import io.cmdemux.gid.Gid;
import io.cmdemux.gid.GidEntry;
import io.cmdemux.gid.GidType;
import io.cmdemux.gid.PkeyTable;
import io.cmdemux.gid.RdmaDevice;
import io.cmdemux.gid.RdmaPort;
import io.cmdemux.gid.RdmaTopology;
import io.cmdemux.ingress.resolve.Decision;
import io.cmdemux.ingress.resolve.DecisionCache;
import io.cmdemux.ingress.resolve.HostState;
import io.cmdemux.ingress.resolve.IngressKey;
import io.cmdemux.ingress.resolve.Listener;
import io.cmdemux.ingress.resolve.ListenerTable;
import io.cmdemux.ingress.resolve.NetworkType;
import io.cmdemux.ingress.resolve.PacketMeta;
import io.cmdemux.ingress.resolve.QpType;
import io.cmdemux.ingress.resolve.Resolver;
import io.cmdemux.ingress.resolve.ResolverMode;
import io.cmdemux.ingress.wire.PortSpace;
import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.testkit.DumpBuilder;
import io.cmdemux.netdev.InetAddresses;
import io.cmdemux.netdev.LinkInfo;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Issue 5's benchmark: a synthetic host of 1,000 pod namespaces with 4 links each (4,000 links),
 * 2 RoCE ports on two uplinks, 8,000 GIDs (one per pod address per port) and 10,000 listeners,
 * encoded as kernel dumps and decoded by the real decoder. Uncached resolve in both modes;
 * cached resolve next to a bare HashMap.get of a comparable key, in the same run.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ResolverBench {
    private HostState state;
    private PacketMeta[] metas;
    private DecisionCache cache;
    private Map<PacketMetaKey, Decision> map;
    private PacketMetaKey[] keys;
    private int i;

    /** Comparable to the cache's key: the same fields, hashed and compared the same way. */
    record PacketMetaKey(String device, int port, NetworkType type, Gid dgid, Gid ourGid, int pkey,
            int bthPkey, long sid, int cmaVersion, int ipVersion, InetAddress dst, InetAddress src, OptionalInt vlan,
            Object dmac, ResolverMode mode, HostState.Generations g) {}

    @Setup
    public void setup() {
        DumpBuilder b = new DumpBuilder();
        NetnsId host = b.host();
        b.link(host, 2, "up0").add().addr(host, 2, "10.200.0.1/16");
        b.link(host, 3, "up1").add().addr(host, 3, "10.201.0.1/16");
        List<GidEntry> gids0 = new ArrayList<>();
        List<GidEntry> gids1 = new ArrayList<>();
        List<Listener> listeners = new ArrayList<>();
        long order = 1;
        metas = new PacketMeta[1000];
        for (int p = 0; p < 1000; p++) {
            NetnsId pod = b.pod("pod" + p, p);
            int[] ifs = {10, 11, 12, 13};
            for (int j = 0; j < 4; j++) {
                int parent = j % 2 == 0 ? 2 : 3;
                b.link(pod, ifs[j], "net" + j).macvlan(parent, 0, LinkInfo.Macvlan.MODE_BRIDGE).add();
                String net = j % 2 == 0 ? "10.200." : "10.201.";
                String ip = net + (p / 250 * 4 + j / 2 * 2 + 1) + "." + (p % 250 + 1);
                b.addr(pod, ifs[j], ip + "/16");
                String ip6 = "2001:db8:" + j + "::" + Integer.toHexString(p + 1);
                b.addr(pod, ifs[j], ip6 + "/64");
                List<GidEntry> table = parent == 2 ? gids0 : gids1;
                LinkRef ndev = new LinkRef(pod, ifs[j]);
                table.add(new GidEntry(table.size() + 1, Gid.parse(ip), GidType.ROCE_V2, ndev, OptionalInt.empty()));
                table.add(new GidEntry(table.size() + 1, Gid.parse(ip6), GidType.ROCE_V2, ndev, OptionalInt.empty()));
                if (j == 0) {
                    metas[p] = meta("rxe0", ip, "10.200.255.254");
                }
            }
            for (int l = 0; l < 10; l++) {
                listeners.add(new Listener(pod, PortSpace.TCP, 7000 + l, InetAddresses.parse("0.0.0.0"), false, 0,
                        order++, null, "bench"));
            }
        }
        RdmaTopology rdma = new RdmaTopology(1, RdmaTopology.NetnsMode.SHARED, List.of(
                device("rxe0", new LinkRef(host, 2), gids0), device("rxe1", new LinkRef(host, 3), gids1)));
        state = new HostState(b.snapshot(1), rdma, new ListenerTable(1, listeners));
        if (state.topology().linkCount() != 4002 || gids0.size() + gids1.size() != 8000 || listeners.size() != 10_000) {
            throw new IllegalStateException("the synthetic host is not the size the benchmark claims");
        }
        Decision d = Resolver.resolve(state, metas[0], ResolverMode.KERNEL);
        if (d.outcome() != Decision.Outcome.DELIVER) {
            throw new IllegalStateException("the benchmark request is not delivered: " + d);
        }
        cache = new DecisionCache(100_000);
        map = new HashMap<>();
        keys = new PacketMetaKey[metas.length];
        for (int k = 0; k < metas.length; k++) {
            cache.resolve(state, metas[k], ResolverMode.KERNEL);
            keys[k] = key(metas[k]);
            map.put(keys[k], d);
        }
    }

    private static RdmaDevice device(String name, LinkRef netdev, List<GidEntry> gids) {
        List<GidEntry> all = new ArrayList<>(gids);
        all.add(0, new GidEntry(0, Gid.parse("fe80::ff:fe00:" + netdev.ifindex()), GidType.ROCE_V2, netdev,
                OptionalInt.empty()));
        RdmaPort port = new RdmaPort(1, RdmaPort.LinkLayer.ETHERNET, "ACTIVE", 0, List.of(), all,
                new PkeyTable(List.of(0xffff)), netdev, List.of());
        return new RdmaDevice(name, 0, true, null, List.of(port));
    }

    private static PacketMeta meta(String dev, String dst, String src) {
        InetAddress d = InetAddresses.parse(dst);
        InetAddress s = InetAddresses.parse(src);
        return new PacketMeta(new IngressKey(dev, 1, 0, 0xffff), NetworkType.ROCE_V2, Gid.ofIp(d), Gid.ofIp(d),
                Gid.ofIp(s), 0xffff, 0xffff, PortSpace.TCP.serviceId(7005), 0, 4, d, s, 40000, OptionalInt.empty(),
                null, false, 1, QpType.RC, Gid.ofIp(s));
    }

    private PacketMetaKey key(PacketMeta m) {
        return new PacketMetaKey(m.key().device(), m.key().port(), m.networkType(), m.dgid(), m.ourGid(), m.pkey(),
                m.bthPkey(), m.serviceId(), m.cmaVersion(), m.ipVersion(), m.dstIp(), m.srcIp(), m.vlan(), m.dmac(),
                ResolverMode.KERNEL, state.generations());
    }

    private PacketMeta next() {
        i = (i + 1) % metas.length;
        return metas[i];
    }

    @Benchmark
    public Decision uncachedKernel() {
        return Resolver.resolve(state, next(), ResolverMode.KERNEL);
    }

    @Benchmark
    public Decision uncachedNetstack() {
        return Resolver.resolve(state, next(), ResolverMode.NETSTACK);
    }

    @Benchmark
    public Decision cachedKernel() {
        return cache.resolve(state, next(), ResolverMode.KERNEL);
    }

    /** The baseline: build the same key and look it up in a plain HashMap. */
    @Benchmark
    public Decision hashMapBaseline() {
        return map.get(key(next()));
    }
}
