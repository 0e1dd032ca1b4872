package io.cmdemux.ingress.resolve;

import io.cmdemux.ingress.wire.PortSpace;

import static io.cmdemux.ingress.resolve.Fixtures.TCP_PORT;
import static io.cmdemux.ingress.resolve.Fixtures.listener;
import static io.cmdemux.ingress.resolve.Fixtures.listeners;
import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.gid.Gid;
import io.cmdemux.gid.GidEntry;
import io.cmdemux.gid.GidType;
import io.cmdemux.gid.PkeyTable;
import io.cmdemux.gid.RdmaDevice;
import io.cmdemux.gid.RdmaPort;
import io.cmdemux.gid.RdmaTopology;
import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.testkit.DumpBuilder;
import io.cmdemux.netdev.InetAddresses;
import io.cmdemux.netdev.LinkInfo;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * ARCHITECTURE.md §4.3, ipoib_get_net_dev_by_params, one rule per test. Port mlx5_0/1 has GID
 * fe80::2:c903:0:1 and P_Keys 0xffff, 0x8001, 0x0002 (limited) and 0x8002 (full). ib0 is the
 * parent; RTNL children may share a P_Key and, like all children, share the parent's GID.
 */
class KernelIbRulesTest {
    static final String DEV = "mlx5_0";
    static final String PORT_GID = "fe80::2:c903:0:1";
    private final DumpBuilder b = new DumpBuilder();
    private final NetnsId host = b.host();
    private final NetnsId a = b.pod("podA", 0);
    private final NetnsId bb = b.pod("podB", 1);
    private final LinkRef ib0 = new LinkRef(host, 3);

    KernelIbRulesTest() {
        b.link(host, 1, "lo").arphrd(772).add();
        b.link(host, 3, "ib0").ipoib(0xffff, PORT_GID, 0x48).add().addr(host, 3, "192.168.0.1/24");
    }

    private RdmaTopology port(List<Integer> pkeys) {
        RdmaPort p = new RdmaPort(1, RdmaPort.LinkLayer.INFINIBAND, "ACTIVE", 0x0002c90300000001L, List.of(),
                List.of(new GidEntry(0, Gid.parse(PORT_GID), GidType.IB, null, OptionalInt.empty())),
                new PkeyTable(pkeys), null, List.of(ib0));
        return new RdmaTopology(1, RdmaTopology.NetnsMode.SHARED,
                List.of(new RdmaDevice(DEV, 0x0002c90300000001L, false, host, List.of(p))));
    }

    private RdmaTopology defaultPort() {
        return port(List.of(0xffff, 0x8001, 0x0002, 0x8002));
    }

    private static PacketMeta ibReq(int pkey, String dst, String src) {
        var d = InetAddresses.parse(dst);
        var s = InetAddresses.parse(src);
        return new PacketMeta(new IngressKey(DEV, 1, 0x0002c90300000001L, pkey), NetworkType.IB, Gid.parse(PORT_GID),
                Gid.parse(PORT_GID), Gid.parse("fe80::2:c903:0:99"), pkey, pkey, PortSpace.TCP.serviceId(TCP_PORT), 0,
                4, d, s, 40000, OptionalInt.empty(), null, false, 7, QpType.RC, Gid.parse("fe80::2:c903:0:99"));
    }

    /** Two RTNL children with P_Key 0x8001 on ib0, moved into pods A and B. */
    private void twoChildrenSamePkey(String ipA, String ipB) {
        b.link(a, 10, "ib0.8001").ipoib(0x8001, PORT_GID, 0x49).parent(3, 0).add().addr(a, 10, ipA + "/24");
        b.link(bb, 11, "ib0.8001b").ipoib(0x8001, PORT_GID, 0x4a).parent(3, 0).add().addr(bb, 11, ipB + "/24");
    }

    @Test
    void aUniqueP_KeyMatchGoesToThatChildsNamespace() {
        b.link(a, 10, "ib0.8002").ipoib(0x8002, PORT_GID, 0x49).parent(3, 0).add().addr(a, 10, "192.168.2.11/24");
        Decision d = Resolver.resolve(
                new HostState(b.snapshot(1), defaultPort(), listeners(listener(a, "0.0.0.0", TCP_PORT, 1))),
                ibReq(0x8002, "192.168.2.11", "192.168.2.99"), ResolverMode.KERNEL);
        assertThat(d.outcome()).isEqualTo(Decision.Outcome.DELIVER);
        assertThat(d.netdev()).isEqualTo(new LinkRef(a, 10));
        assertThat(d.trace()).extracting(TraceStep::step).contains("pkey-index", "ipoib-l2").doesNotContain("ipoib-l3");
    }

    @Test
    void sameP_KeyChildrenAreSplitByTheDestinationIp() {
        twoChildrenSamePkey("192.168.1.11", "192.168.1.12");
        var s = new HostState(b.snapshot(1), defaultPort(),
                listeners(listener(a, "0.0.0.0", TCP_PORT, 1), listener(bb, "0.0.0.0", TCP_PORT, 2)));
        Decision toB = Resolver.resolve(s, ibReq(0x8001, "192.168.1.12", "192.168.1.99"), ResolverMode.KERNEL);
        assertThat(toB.netdev()).isEqualTo(new LinkRef(bb, 11));
        assertThat(toB.outcome()).isEqualTo(Decision.Outcome.DELIVER);
        assertThat(toB.trace()).extracting(TraceStep::step).contains("ipoib-l3");
        Decision toA = Resolver.resolve(s, ibReq(0x8001, "192.168.1.11", "192.168.1.99"), ResolverMode.KERNEL);
        assertThat(toA.netdev()).isEqualTo(new LinkRef(a, 10));
    }

    @Test
    void aDuplicateIpOnSameP_KeyChildrenTakesTheFirstInListOrder() {
        twoChildrenSamePkey("192.168.1.20", "192.168.1.20");
        var s = new HostState(b.snapshot(1), defaultPort(),
                listeners(listener(a, "0.0.0.0", TCP_PORT, 1), listener(bb, "0.0.0.0", TCP_PORT, 2)));
        Decision d = Resolver.resolve(s, ibReq(0x8001, "192.168.1.20", "192.168.1.99"), ResolverMode.KERNEL);
        assertThat(d.netdev()).isEqualTo(new LinkRef(a, 10));
        assertThat(d.trace().stream()
                        .filter(t -> t.step().equals("ipoib-l3"))
                        .findFirst()
                        .orElseThrow()
                        .why())
                .contains("duplicate IP address detected");
    }

    @Test
    void aChildThatIsDownRejectsWith28() {
        // InfiniBand: ib_cm answers by LID, no IP route is looked up first, so rdma_cm's IFF_UP check decides.
        b.link(a, 10, "ib0.8002")
                .ipoib(0x8002, PORT_GID, 0x49)
                .parent(3, 0)
                .down()
                .add()
                .addr(a, 10, "192.168.2.11/24");
        Decision d = Resolver.resolve(
                new HostState(b.snapshot(1), defaultPort(), listeners(listener(a, "0.0.0.0", TCP_PORT, 1))),
                ibReq(0x8002, "192.168.2.11", "192.168.2.99"), ResolverMode.KERNEL);
        assertThat(d.outcome()).isEqualTo(Decision.Outcome.REJECT);
        assertThat(d.rejectReason()).isEqualTo(28);
        assertThat(d.trace()).extracting(TraceStep::step).contains("iff-up");
    }

    @Test
    void aBondOverIpoibReturnsTheBondMaster() {
        b.link(host, 20, "bond0").bond(LinkInfo.Bond.MODE_ACTIVEBACKUP, 21).add().addr(host, 20, "192.168.5.1/24");
        b.link(host, 21, "ib1").ipoib(0x8002, PORT_GID, 0x50).parent(3).bondSlave(20, true).add();
        var s = new HostState(b.snapshot(1), defaultPort(), listeners(listener(host, "0.0.0.0", TCP_PORT, 1)));
        Decision d = Resolver.resolve(s, ibReq(0x8002, "192.168.5.1", "192.168.5.99"), ResolverMode.KERNEL);
        assertThat(d.netdev()).isEqualTo(new LinkRef(host, 20));
        assertThat(d.outcome()).isEqualTo(Decision.Outcome.DELIVER);
    }

    @Test
    void aP_KeyMissingFromTheTableRejectsWith28() {
        var s = new HostState(b.snapshot(1), defaultPort(), listeners(listener(host, "0.0.0.0", TCP_PORT, 1)));
        Decision d = Resolver.resolve(s, ibReq(0x8003, "192.168.0.1", "192.168.0.99"), ResolverMode.KERNEL);
        assertThat(d.rejectReason()).isEqualTo(28);
        assertThat(d.netdev()).isNull();
    }

    @Test
    void p_KeysAreComparedOnTheirLow15BitsPreferringFullMembership() {
        // 0x0002 (limited) sits before 0x8002 (full) in the table: a child with 0x8002 has index 3, and so does a
        // request for the limited 0x0002, so it matches that child.
        b.link(a, 10, "ib0.8002").ipoib(0x8002, PORT_GID, 0x49).parent(3, 0).add().addr(a, 10, "192.168.2.11/24");
        var s = new HostState(b.snapshot(1), defaultPort(), listeners(listener(a, "0.0.0.0", TCP_PORT, 1)));
        Decision d = Resolver.resolve(s, ibReq(0x0002, "192.168.2.11", "192.168.2.99"), ResolverMode.KERNEL);
        assertThat(d.netdev()).isEqualTo(new LinkRef(a, 10));
        assertThat(new PkeyTable(List.of(0xffff, 0x0002)).indexOf(0x8002)).hasValue(1);
    }

    @Test
    void aChildWithAnotherGidDoesNotMatchTheL2Pass() {
        b.link(a, 10, "ib0.8002")
                .ipoib(0x8002, "fe80::2:c903:0:55", 0x49)
                .parent(3, 0)
                .add()
                .addr(a, 10, "192.168.2.11/24");
        var s = new HostState(b.snapshot(1), defaultPort(), listeners(listener(a, "0.0.0.0", TCP_PORT, 1)));
        Decision d = Resolver.resolve(s, ibReq(0x8002, "192.168.2.11", "192.168.2.99"), ResolverMode.KERNEL);
        assertThat(d.rejectReason()).isEqualTo(28);
    }

    @Test
    void netdevForNeedsNoListenerAndFindsTheChildOfAUniqueP_Key() {
        b.link(a, 10, "ib0.8002").ipoib(0x8002, PORT_GID, 0x49).parent(3, 0).add().addr(a, 10, "192.168.2.11/24");
        var s = new HostState(b.snapshot(1), defaultPort(), ListenerTable.empty());
        Resolver.NetdevLookup l = Resolver.netdevFor(s, DEV, 1, Gid.parse(PORT_GID), 0x8002, null);
        assertThat(l.netdev()).isEqualTo(new LinkRef(a, 10));
        assertThat(l.netns()).isEqualTo(a);
        assertThat(Resolver.netdevFor(s, DEV, 1, Gid.parse(PORT_GID), 0xffff, null).netdev()).isEqualTo(ib0);
    }

    @Test
    void netdevForLeavesSameP_KeyChildrenUndecidedWithoutAnIpAndSplitsThemWithOne() {
        twoChildrenSamePkey("192.168.1.11", "192.168.1.12");
        var s = new HostState(b.snapshot(1), defaultPort(), ListenerTable.empty());
        Resolver.NetdevLookup none = Resolver.netdevFor(s, DEV, 1, Gid.parse(PORT_GID), 0x8001, null);
        assertThat(none.netdev()).isNull();
        assertThat(none.netns()).isNull();
        assertThat(none.trace()).extracting(TraceStep::step).contains("ipoib-l3");
        assertThat(Resolver.netdevFor(s, DEV, 1, Gid.parse(PORT_GID), 0x8001, InetAddresses.parse("192.168.1.12"))
                        .netns())
                .isEqualTo(bb);
        assertThat(Resolver.netdevFor(s, "mlx5_9", 1, Gid.parse(PORT_GID), 0x8001, null).netdev()).isNull();
    }
}
