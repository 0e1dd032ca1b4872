package io.cmdemux.ingress.resolve;

import io.cmdemux.ingress.wire.PortSpace;

import static io.cmdemux.ingress.resolve.Fixtures.TCP_PORT;
import static io.cmdemux.ingress.resolve.Fixtures.gid;
import static io.cmdemux.ingress.resolve.Fixtures.listener;
import static io.cmdemux.ingress.resolve.Fixtures.listeners;
import static io.cmdemux.ingress.resolve.Fixtures.req;
import static io.cmdemux.ingress.resolve.Fixtures.roce;
import static io.cmdemux.ingress.resolve.Fixtures.vlanGid;
import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.gid.Gid;
import io.cmdemux.gid.RdmaTopology;
import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.testkit.DumpBuilder;
import io.cmdemux.netdev.InetAddresses;
import io.cmdemux.netdev.LinkInfo;
import io.cmdemux.netdev.Route;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * ARCHITECTURE.md §4.2–§4.7 on RoCE, one rule per test. The topology is a host port netdev "up0" with
 * macvlans in pods A and B (ipvlan and vlan where a rule needs them), encoded as the kernel dumps
 * them; GID tables are written out by roce_gid_mgmt's rules.
 */
class KernelRoceRulesTest {
    private final TwoPods pods = new TwoPods();
    private final DumpBuilder b = pods.b;
    private final NetnsId host = pods.host;
    private final NetnsId a = pods.a;
    private final NetnsId bb = pods.bb;
    private final LinkRef up0 = pods.up0;
    private final LinkRef mvA = pods.mvA;
    private final LinkRef mvB = pods.mvB;

    private HostState state(RdmaTopology rdma, ListenerTable l) {
        return new HostState(b.snapshot(1), rdma, l);
    }

    private RdmaTopology defaultTable() {
        return roce(up0,
                List.of(
                        gid(0, "fe80::ff:fe00:2", up0),
                        gid(1, "10.0.0.1", up0),
                        gid(2, "10.0.0.11", mvA),
                        gid(3, "10.0.0.12", mvB)));
    }

    @Test
    void macvlanOnRoceDeliversToThePodWhoseMacvlanOwnsTheGid() {
        HostState s = state(defaultTable(),
                listeners(listener(a, "10.0.0.11", TCP_PORT, 1), listener(bb, "10.0.0.12", TCP_PORT, 2)));
        Decision d = Resolver.resolve(s, req("10.0.0.11", "10.0.0.99"), ResolverMode.KERNEL);
        assertThat(d.outcome()).isEqualTo(Decision.Outcome.DELIVER);
        assertThat(d.netdev()).isEqualTo(mvA);
        assertThat(d.netns()).isEqualTo(a);
        assertThat(d.listener().netns()).isEqualTo(a);
        assertThat(d.trace())
                .extracting(TraceStep::step)
                .containsSubsequence("gid-match", "ib-cm-listen", "net-dev", "validate-net-dev", "netns", "listener");
    }

    @Test
    void sameIpInTwoPodsResolvesToLowestGidIndexLikeTheKernel() {
        b.addr(a, 5, "10.0.0.50/24").addr(bb, 6, "10.0.0.50/24");
        // B added the address first, so its entry holds the lower index; only A listens.
        RdmaTopology rdma =
                roce(up0, List.of(gid(0, "fe80::ff:fe00:2", up0), gid(4, "10.0.0.50", mvB), gid(5, "10.0.0.50", mvA)));
        Decision d = Resolver.resolve(state(rdma, listeners(listener(a, "10.0.0.50", TCP_PORT, 1))),
                req("10.0.0.50", "10.0.0.99"), ResolverMode.KERNEL);
        assertThat(d.netdev()).isEqualTo(mvB);
        assertThat(d.outcome()).isEqualTo(Decision.Outcome.REJECT);
        assertThat(d.rejectReason()).isEqualTo(28);
    }

    @Test
    void noMatchingGidEntryIsASilentDropNotAReject() {
        Decision d = Resolver.resolve(state(defaultTable(), listeners(listener(a, "0.0.0.0", TCP_PORT, 1))),
                req("10.0.0.77", "10.0.0.99"), ResolverMode.KERNEL);
        assertThat(d.outcome()).isEqualTo(Decision.Outcome.DROP);
        assertThat(d.rejectReason()).isNull();
    }

    @Test
    void gidOfTheWrongTypeDoesNotMatch() {
        RdmaTopology rdma = roce(up0,
                List.of(new io.cmdemux.gid.GidEntry(
                        2, Gid.parse("10.0.0.11"), io.cmdemux.gid.GidType.ROCE_V1, mvA, OptionalInt.empty())));
        Decision d = Resolver.resolve(state(rdma, listeners(listener(a, "10.0.0.11", TCP_PORT, 1))),
                req("10.0.0.11", "10.0.0.99"), ResolverMode.KERNEL);
        assertThat(d.outcome()).isEqualTo(Decision.Outcome.DROP);
    }

    @Test
    void taggedFramesMatchOnlyEntriesOfAVlanDeviceWithThatVid() {
        b.link(host, 3, "up0.100").vlan(2, -1, 100).add();
        b.link(a, 7, "v100").vlan(3, 0, 100).add().addr(a, 7, "10.1.0.11/24");
        LinkRef vA = new LinkRef(a, 7);
        RdmaTopology rdma = roce(up0, List.of(gid(0, "fe80::ff:fe00:2", up0), vlanGid(6, "10.1.0.11", vA, 100)));
        HostState s = state(rdma, listeners(listener(a, "0.0.0.0", TCP_PORT, 1)));
        Decision tagged = Resolver.resolve(
                s, req(Fixtures.DEV, "10.1.0.11", "10.1.0.99", OptionalInt.of(100), null), ResolverMode.KERNEL);
        assertThat(tagged.outcome()).isEqualTo(Decision.Outcome.DELIVER);
        assertThat(tagged.netdev()).isEqualTo(vA);
        Decision untagged = Resolver.resolve(s, req("10.1.0.11", "10.1.0.99"), ResolverMode.KERNEL);
        assertThat(untagged.outcome()).isEqualTo(Decision.Outcome.DROP);
        Decision otherVid = Resolver.resolve(
                s, req(Fixtures.DEV, "10.1.0.11", "10.1.0.99", OptionalInt.of(200), null), ResolverMode.KERNEL);
        assertThat(otherVid.outcome()).isEqualTo(Decision.Outcome.DROP);
    }

    @Test
    void ipvlanOnRoceDeliversToTheIpvlanThatOwnsTheAddress() {
        b.link(a, 8, "ipv0").ipvlan(2, 0, LinkInfo.Ipvlan.MODE_L3).add().addr(a, 8, "10.2.0.11/24");
        LinkRef ipv = new LinkRef(a, 8);
        RdmaTopology rdma = roce(up0, List.of(gid(0, "fe80::ff:fe00:2", up0), gid(7, "10.2.0.11", ipv)));
        Decision d = Resolver.resolve(state(rdma, listeners(listener(a, "10.2.0.11", TCP_PORT, 1))),
                req("10.2.0.11", "10.2.0.99"), ResolverMode.KERNEL);
        assertThat(d.outcome()).isEqualTo(Decision.Outcome.DELIVER);
        assertThat(d.netdev()).isEqualTo(ipv);
    }

    @Test
    void noRouteBackThroughTheNetdevRejectsWith28() {
        // the peer is outside the pod's /24 and the pod has no default route
        Decision d = Resolver.resolve(state(defaultTable(), listeners(listener(a, "0.0.0.0", TCP_PORT, 1))),
                req("10.0.0.11", "192.0.2.9"), ResolverMode.KERNEL);
        assertThat(d.outcome()).isEqualTo(Decision.Outcome.REJECT);
        assertThat(d.rejectReason()).isEqualTo(28);
        assertThat(d.trace()).extracting(TraceStep::step).contains("validate-net-dev");
    }

    @Test
    void aDefaultRouteThroughTheNetdevSatisfiesTheRouteCheck() {
        b.route(a, Route.RT_TABLE_MAIN, Route.RTN_UNICAST, "default", 5, "10.0.0.1", 0);
        Decision d = Resolver.resolve(state(defaultTable(), listeners(listener(a, "0.0.0.0", TCP_PORT, 1))),
                req("10.0.0.11", "192.0.2.9"), ResolverMode.KERNEL);
        assertThat(d.outcome()).isEqualTo(Decision.Outcome.DELIVER);
    }

    @Test
    void anUnreachableRouteForThePeerRejectsEvenWithABroaderRouteThroughTheNetdev() {
        b.route(a, Route.RT_TABLE_MAIN, Route.RTN_UNREACHABLE, "10.0.0.99/32", 0, null, 0);
        Decision d = Resolver.resolve(state(defaultTable(), listeners(listener(a, "0.0.0.0", TCP_PORT, 1))),
                req("10.0.0.11", "10.0.0.99"), ResolverMode.KERNEL);
        assertThat(d.rejectReason()).isEqualTo(28);
    }

    @Test
    void noListenerInTheChosenNamespaceRejectsWith28() {
        Decision d = Resolver.resolve(state(defaultTable(), listeners(listener(bb, "0.0.0.0", TCP_PORT, 1))),
                req("10.0.0.11", "10.0.0.99"), ResolverMode.KERNEL);
        assertThat(d.outcome()).isEqualTo(Decision.Outcome.REJECT);
        assertThat(d.rejectReason()).isEqualTo(28);
        assertThat(d.netns()).isEqualTo(a);
    }

    @Test
    void noListenerAnywhereRejectsWith8() {
        Decision d = Resolver.resolve(state(defaultTable(), listeners(listener(a, "0.0.0.0", TCP_PORT + 1, 1))),
                req("10.0.0.11", "10.0.0.99"), ResolverMode.KERNEL);
        assertThat(d.outcome()).isEqualTo(Decision.Outcome.REJECT);
        assertThat(d.rejectReason()).isEqualTo(8);
    }

    @Test
    void theMostRecentlyBoundMatchingListenerWinsWildcardOrSpecific() {
        Listener specific = listener(a, "10.0.0.11", TCP_PORT, 1);
        Listener wildcard = listener(a, "0.0.0.0", TCP_PORT, 2);
        Decision d = Resolver.resolve(state(defaultTable(), listeners(specific, wildcard)),
                req("10.0.0.11", "10.0.0.99"), ResolverMode.KERNEL);
        assertThat(d.listener()).isEqualTo(wildcard);
        Listener specificLater = listener(a, "10.0.0.11", TCP_PORT, 3);
        d = Resolver.resolve(state(defaultTable(), listeners(specificLater, wildcard)), req("10.0.0.11", "10.0.0.99"),
                ResolverMode.KERNEL);
        assertThat(d.listener()).isEqualTo(specificLater);
        // a specific listener for another address is skipped, whatever its age
        Listener other = listener(a, "10.0.0.12", TCP_PORT, 9);
        d = Resolver.resolve(
                state(defaultTable(), listeners(other, wildcard)), req("10.0.0.11", "10.0.0.99"), ResolverMode.KERNEL);
        assertThat(d.listener()).isEqualTo(wildcard);
    }

    @Test
    void loopbackBoundListenersCountAsWildcard() {
        Listener lo = listener(a, "127.0.0.1", TCP_PORT, 1);
        Decision d = Resolver.resolve(
                state(defaultTable(), listeners(lo)), req("10.0.0.11", "10.0.0.99"), ResolverMode.KERNEL);
        assertThat(d.listener()).isEqualTo(lo);
    }

    @Test
    void anAfonlyIpv6WildcardDoesNotTakeIpv4ButAPlainOneDoes() {
        Listener v6only = new Listener(a, PortSpace.TCP, TCP_PORT, InetAddresses.parse("::"), true, 0, 1, null, "test");
        HostState s = state(defaultTable(), listeners(v6only));
        assertThat(Resolver.resolve(s, req("10.0.0.11", "10.0.0.99"), ResolverMode.KERNEL)
                        .rejectReason())
                .isEqualTo(28);
        Listener v6any = new Listener(a, PortSpace.TCP, TCP_PORT, InetAddresses.parse("::"), false, 0, 1, null, "test");
        Decision d = Resolver.resolve(
                state(defaultTable(), listeners(v6any)), req("10.0.0.11", "10.0.0.99"), ResolverMode.KERNEL);
        assertThat(d.outcome()).isEqualTo(Decision.Outcome.DELIVER);
        // a specific IPv4 listener never takes an IPv6 request for the same pod
        Listener v4 = listener(a, "10.0.0.11", TCP_PORT, 1);
        RdmaTopology rdma = roce(up0, List.of(gid(9, "fe80::a:11", mvA)));
        assertThat(Resolver.resolve(state(rdma, listeners(v4)), req("fe80::a:11", "fe80::99"), ResolverMode.KERNEL)
                        .rejectReason())
                .isEqualTo(28);
    }

    @Test
    void ipv6LinkLocalRequestsAlsoNeedTheBoundInterface() {
        RdmaTopology rdma = roce(up0, List.of(gid(9, "fe80::a:11", mvA)));
        Listener boundElsewhere =
                new Listener(a, PortSpace.TCP, TCP_PORT, InetAddresses.parse("::"), false, 42, 2, null, "test");
        Listener unbound =
                new Listener(a, PortSpace.TCP, TCP_PORT, InetAddresses.parse("::"), false, 0, 1, null, "test");
        Decision d = Resolver.resolve(
                state(rdma, listeners(boundElsewhere, unbound)), req("fe80::a:11", "fe80::99"), ResolverMode.KERNEL);
        assertThat(d.outcome()).isEqualTo(Decision.Outcome.DELIVER);
        assertThat(d.listener()).isEqualTo(unbound);
        Listener boundHere =
                new Listener(a, PortSpace.TCP, TCP_PORT, InetAddresses.parse("::"), false, 5, 3, null, "test");
        d = Resolver.resolve(
                state(rdma, listeners(boundElsewhere, boundHere)), req("fe80::a:11", "fe80::99"), ResolverMode.KERNEL);
        assertThat(d.listener()).isEqualTo(boundHere);
    }

    @Test
    void afIbRequestsGoToTheHostNamespaceAndOnlyToAfIbListeners() {
        PacketMeta ib = withIpVersion(req("10.0.0.11", "10.0.0.99"), 0);
        Listener hostIp = listener(host, "0.0.0.0", TCP_PORT, 2);
        Decision d = Resolver.resolve(state(defaultTable(), listeners(hostIp)), ib, ResolverMode.KERNEL);
        assertThat(d.outcome()).isEqualTo(Decision.Outcome.REJECT);
        assertThat(d.rejectReason()).isEqualTo(28);
        assertThat(d.netns()).isEqualTo(host);
        assertThat(d.trace()).extracting(TraceStep::step).contains("listener").doesNotContain("acquire-dev");
    }

    @Test
    void anAfIbRequestOnRoceFindsItsListenerButCannotAcquireTheDevice() {
        // cma_ib_new_conn_id gives the new id an AF_IB source (cma_translate_ib: ARPHRD_INFINIBAND), and
        // cma_validate_port refuses an InfiniBand dev_type on a RoCE port: -ENODEV, REJ 28.
        PacketMeta ib = withIpVersion(req("10.0.0.11", "10.0.0.99"), 0);
        Listener hostIb = new Listener(host, PortSpace.TCP, TCP_PORT, null, false, 0, 1, null, "test");
        Decision d = Resolver.resolve(state(defaultTable(), listeners(listener(host, "0.0.0.0", TCP_PORT, 2), hostIb)),
                ib, ResolverMode.KERNEL);
        assertThat(d.outcome()).isEqualTo(Decision.Outcome.REJECT);
        assertThat(d.rejectReason()).isEqualTo(28);
        assertThat(d.netns()).isEqualTo(host);
        assertThat(d.trace()).extracting(TraceStep::step).containsSubsequence("listener", "acquire-dev");
    }

    @Test
    void aNonZeroCmaVersionRejectsWith28() {
        PacketMeta m = req("10.0.0.11", "10.0.0.99");
        PacketMeta bad = new PacketMeta(m.key(), m.networkType(), m.dgid(), m.ourGid(), m.peerGid(), m.pkey(),
                m.bthPkey(), m.serviceId(), 1, m.ipVersion(), m.dstIp(), m.srcIp(), m.srcPort(), m.vlan(), m.dmac(),
                m.sidr(), m.localCommId(), m.qpType(), m.srcGid());
        Decision d = Resolver.resolve(
                state(defaultTable(), listeners(listener(a, "0.0.0.0", TCP_PORT, 1))), bad, ResolverMode.KERNEL);
        assertThat(d.rejectReason()).isEqualTo(28);
    }

    @Test
    void exclusiveModeHidesTheDeviceFromOtherNamespaces() {
        RdmaTopology shared = defaultTable();
        io.cmdemux.gid.RdmaDevice dev = shared.devices().get(0);
        RdmaTopology exclusive = new RdmaTopology(2, RdmaTopology.NetnsMode.EXCLUSIVE,
                List.of(new io.cmdemux.gid.RdmaDevice(dev.name(), dev.nodeGuid(), false, host, dev.ports())));
        // Only the pod listens: its wildcard listener gets no per-device copy, so ib_cm has no listener at all.
        Decision onlyPod = Resolver.resolve(state(exclusive, listeners(listener(a, "0.0.0.0", TCP_PORT, 1))),
                req("10.0.0.11", "10.0.0.99"), ResolverMode.KERNEL);
        assertThat(onlyPod.rejectReason()).isEqualTo(8);
        // With a host listener too, ib_cm listens, the request is steered
        // to the pod, and the pod's listener may not use the device.
        Decision both = Resolver.resolve(
                state(exclusive,
                        listeners(listener(a, "0.0.0.0", TCP_PORT, 1), listener(host, "0.0.0.0", TCP_PORT, 2))),
                req("10.0.0.11", "10.0.0.99"), ResolverMode.KERNEL);
        assertThat(both.rejectReason()).isEqualTo(28);
        assertThat(both.netns()).isEqualTo(a);
        Decision sharedMode = Resolver.resolve(state(shared, listeners(listener(a, "0.0.0.0", TCP_PORT, 1))),
                req("10.0.0.11", "10.0.0.99"), ResolverMode.KERNEL);
        assertThat(sharedMode.outcome()).isEqualTo(Decision.Outcome.DELIVER);
    }

    @Test
    void aBthPkeyMismatchOnlyWarns() {
        PacketMeta m = req("10.0.0.11", "10.0.0.99");
        PacketMeta odd = new PacketMeta(m.key(), m.networkType(), m.dgid(), m.ourGid(), m.peerGid(), m.pkey(), 0x8001,
                m.serviceId(), 0, m.ipVersion(), m.dstIp(), m.srcIp(), m.srcPort(), m.vlan(), m.dmac(), m.sidr(),
                m.localCommId(), m.qpType(), m.srcGid());
        Decision d = Resolver.resolve(
                state(defaultTable(), listeners(listener(a, "0.0.0.0", TCP_PORT, 1))), odd, ResolverMode.KERNEL);
        assertThat(d.outcome()).isEqualTo(Decision.Outcome.DELIVER);
        assertThat(d.trace()).extracting(TraceStep::step).contains("pkey-mismatch");
    }

    static PacketMeta withIpVersion(PacketMeta m, int ipVersion) {
        return new PacketMeta(m.key(), m.networkType(), m.dgid(), m.ourGid(), m.peerGid(), m.pkey(), m.bthPkey(),
                m.serviceId(), m.cmaVersion(), ipVersion, ipVersion == 0 ? null : m.dstIp(),
                ipVersion == 0 ? null : m.srcIp(), m.srcPort(), m.vlan(), m.dmac(), m.sidr(), m.localCommId(),
                m.qpType(), m.srcGid());
    }

}
