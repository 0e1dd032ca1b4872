package io.cmdemux.ingress.resolve;

import io.cmdemux.ingress.wire.PortSpace;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.gid.Gid;
import io.cmdemux.gid.GidEntry;
import io.cmdemux.gid.GidType;
import io.cmdemux.gid.RdmaTopology;
import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.namespaces.testkit.DumpBuilder;
import io.cmdemux.netdev.Address;
import io.cmdemux.netdev.InetAddresses;
import io.cmdemux.netdev.Link;
import io.cmdemux.netdev.LinkInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Properties over random RoCE hosts: pods with macvlans and vlans on one port netdev, addresses
 * drawn from a small pool (so duplicates happen), GID tables laid out by roce_gid_mgmt's rules
 * in address order, random listeners, random requests.
 */
class ResolverProperties {
    private static final String[] POOL = {"10.9.0.1", "10.9.0.2", "10.9.0.3", "10.9.0.4"};

    record PodSpec(int macvlans, boolean vlan, List<Integer> addrs, boolean listenWild, boolean listenSpecific) {}

    record Request(int addr, boolean tagged, int mode) {}

    record World(HostState state, LinkRef port) {}

    @Provide
    Arbitrary<List<PodSpec>> pods() {
        Arbitrary<PodSpec> pod = Combinators.combine(
                Arbitraries.integers().between(1, 2), Arbitraries.of(true, false),
                Arbitraries.integers().between(0, POOL.length - 1).list().ofMaxSize(2),
                Arbitraries.of(true, false), Arbitraries.of(true, false)).as(PodSpec::new);
        return pod.list().ofMinSize(1).ofMaxSize(4);
    }

    @Provide
    Arbitrary<Request> requests() {
        return Combinators.combine(Arbitraries.integers().between(0, POOL.length - 1), Arbitraries.of(true, false),
                Arbitraries.integers().between(0, 1)).as(Request::new);
    }

    private static World build(List<PodSpec> pods) {
        DumpBuilder b = new DumpBuilder();
        NetnsId host = b.host();
        b.link(host, 2, "up0").add();
        List<GidEntry> gids = new ArrayList<>();
        gids.add(new GidEntry(
                0, Gid.parse("fe80::ff:fe00:2"), GidType.ROCE_V2, new LinkRef(host, 2), OptionalInt.empty()));
        List<Listener> listeners = new ArrayList<>();
        int ifindex = 10;
        long order = 1;
        for (int p = 0; p < pods.size(); p++) {
            PodSpec spec = pods.get(p);
            NetnsId pod = b.pod("pod" + p, p);
            List<Integer> devs = new ArrayList<>();
            for (int m = 0; m < spec.macvlans(); m++) {
                b.link(pod, ifindex, "mv" + m).macvlan(2, 0, LinkInfo.Macvlan.MODE_BRIDGE).add();
                devs.add(ifindex++);
            }
            if (spec.vlan()) {
                b.link(pod, ifindex, "v7").vlan(2, 0, 7).add();
                devs.add(ifindex++);
            }
            for (int i = 0; i < spec.addrs().size(); i++) {
                int dev = devs.get(i % devs.size());
                String ip = POOL[spec.addrs().get(i)];
                b.addr(pod, dev, ip + "/24");
                boolean isVlan = spec.vlan() && dev == devs.get(devs.size() - 1);
                gids.add(new GidEntry(gids.size(), Gid.parse(ip), GidType.ROCE_V2, new LinkRef(pod, dev),
                        isVlan ? OptionalInt.of(7) : OptionalInt.empty()));
            }
            if (spec.listenWild()) {
                listeners.add(new Listener(
                        pod, PortSpace.TCP, 7471, InetAddresses.parse("0.0.0.0"), false, 0, order++, null, "prop"));
            }
            if (spec.listenSpecific() && !spec.addrs().isEmpty()) {
                listeners.add(new Listener(pod, PortSpace.TCP, 7471, InetAddresses.parse(POOL[spec.addrs().get(0)]),
                        false, 0, order++, null, "prop"));
            }
        }
        TopologySnapshot topo = b.snapshot(1);
        RdmaTopology rdma = Fixtures.roce(new LinkRef(host, 2), gids);
        return new World(new HostState(topo, rdma, new ListenerTable(1, listeners)), new LinkRef(host, 2));
    }

    private static PacketMeta meta(Request r) {
        return Fixtures.req(
                Fixtures.DEV, POOL[r.addr()], "10.9.0.200", r.tagged() ? OptionalInt.of(7) : OptionalInt.empty(), null);
    }

    private static ResolverMode mode(Request r) {
        return r.mode() == 0 ? ResolverMode.KERNEL : ResolverMode.NETSTACK;
    }

    @Property(tries = 300)
    void aDeliveredRequestLandsOnANetdevThatHoldsItsAddressAboveTheIngressPort(
            @ForAll("pods") List<PodSpec> pods, @ForAll("requests") Request r) {
        World w = build(pods);
        PacketMeta m = meta(r);
        Decision d = Resolver.resolve(w.state(), m, mode(r));
        if (d.outcome() != Decision.Outcome.DELIVER) {
            return;
        }
        TopologySnapshot t = w.state().topology();
        assertThat(d.netns()).isEqualTo(d.netdev().netns());
        if (d.mode() == ResolverMode.KERNEL) {
            // the GID entry's ndev is the device that owns the IP (roce_gid_mgmt)
            assertThat(t.namespace(d.netns()).addressesOf(d.netdev().ifindex()))
                    .extracting(Address::address)
                    .contains(m.dstIp());
        } else {
            // a weak-host stack: the address is local somewhere in the receiving device's namespace
            assertThat(t.namespace(d.netns()).addresses()).extracting(Address::address).contains(m.dstIp());
        }
        // reachable: following IFLA_LINK from the netdev leads to the ingress port's netdev
        LinkRef cur = d.netdev();
        for (int i = 0; i < 8 && !cur.equals(w.port()); i++) {
            Optional<LinkRef> p = t.parentOf(cur);
            assertThat(p).as("%s has a parent on the way to the port", cur).isPresent();
            cur = p.get();
        }
        assertThat(cur).isEqualTo(w.port());
        // a tagged frame only reaches a vlan device with its VID, an untagged one never does
        Link l = t.link(d.netdev());
        assertThat(l.info() instanceof LinkInfo.Vlan).isEqualTo(m.vlan().isPresent());
        assertThat(d.listener().netns()).isEqualTo(d.netns());
    }

    @Property(tries = 200)
    void theSameInputsAlwaysGiveTheSameDecision(@ForAll("pods") List<PodSpec> pods, @ForAll("requests") Request r) {
        World w = build(pods);
        Decision first = Resolver.resolve(w.state(), meta(r), mode(r));
        Decision again = Resolver.resolve(build(pods).state(), meta(r), mode(r));
        assertThat(again).isEqualTo(first);
    }

    @Property(tries = 200)
    void aCachedDecisionEqualsTheUncachedOne(@ForAll("pods") List<PodSpec> pods, @ForAll("requests") Request r) {
        World w = build(pods);
        DecisionCache cache = new DecisionCache(100);
        Decision uncached = Resolver.resolve(w.state(), meta(r), mode(r));
        assertThat(cache.resolve(w.state(), meta(r), mode(r))).isEqualTo(uncached);
        // a second request differing only in what the resolver ignores is a hit with the same answer
        PacketMeta m = meta(r);
        PacketMeta other = new PacketMeta(m.key(), m.networkType(), m.dgid(), m.ourGid(), m.peerGid(), m.pkey(),
                m.bthPkey(), m.serviceId(), m.cmaVersion(), m.ipVersion(), m.dstIp(), m.srcIp(), 50000, m.vlan(),
                m.dmac(), m.sidr(), 0x9999, m.qpType(), m.srcGid());
        assertThat(cache.resolve(w.state(), other, mode(r))).isEqualTo(uncached);
        assertThat(cache.hits()).isEqualTo(1);
    }

    @Property(tries = 300)
    void theAnswerIsTheSameWhetherOrNotTheTraceIsWrittenAsTheWalkGoes(
            @ForAll("pods") List<PodSpec> pods, @ForAll("requests") Request r) {
        World w = build(pods);
        Decision untraced = Resolver.resolve(w.state(), meta(r), mode(r));
        Decision traced = Resolver.resolveTraced(w.state(), meta(r), mode(r));
        assertThat(RenderedOnDemand.sameAnswer(traced, untraced)).as("%s vs %s", traced, untraced).isTrue();
        assertThat(untraced.trace()).isEqualTo(traced.trace());
        assertThat(untraced).isEqualTo(traced);
    }

    @Property(tries = 100)
    void aNewListenerGenerationIsNeverServedAnOldDecision(
            @ForAll("pods") List<PodSpec> pods, @ForAll("requests") Request r) {
        World w = build(pods);
        DecisionCache cache = new DecisionCache(100);
        cache.resolve(w.state(), meta(r), mode(r));
        HostState emptied = new HostState(w.state().topology(), w.state().rdma(), new ListenerTable(2, List.of()));
        Decision d = cache.resolve(emptied, meta(r), mode(r));
        assertThat(d).isEqualTo(Resolver.resolve(emptied, meta(r), mode(r)));
        assertThat(d.outcome()).isNotEqualTo(Decision.Outcome.DELIVER);
        // the old generation's entry, which could never be hit again, is gone rather than pinning its state
        assertThat(cache.size()).isEqualTo(1);
    }
}
