package io.cmdemux.ingress.resolve;

import static io.cmdemux.ingress.resolve.Fixtures.TCP_PORT;
import static io.cmdemux.ingress.resolve.Fixtures.gid;
import static io.cmdemux.ingress.resolve.Fixtures.listener;
import static io.cmdemux.ingress.resolve.Fixtures.listeners;
import static io.cmdemux.ingress.resolve.Fixtures.req;
import static io.cmdemux.ingress.resolve.Fixtures.roce;
import static io.cmdemux.ingress.resolve.Fixtures.vlanGid;
import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.gid.RdmaTopology;
import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.testkit.DumpBuilder;
import io.cmdemux.netdev.LinkInfo;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** ARCHITECTURE.md §5: the netstack walk, and where it parts ways with the kernel's GID-table answer. */
class NetstackModeTest {
    private static final String MAC_A = TwoPods.MAC_A;
    private static final String MAC_B = TwoPods.MAC_B;
    private final TwoPods pods = new TwoPods();
    private final DumpBuilder b = pods.b;
    private final NetnsId host = pods.host;
    private final NetnsId a = pods.a;
    private final NetnsId bb = pods.bb;
    private final LinkRef up0 = pods.up0;
    private final LinkRef mvA = pods.mvA;
    private final LinkRef mvB = pods.mvB;

    @Test
    void macvlanIsChosenByDestinationMac() {
        var s = new HostState(b.snapshot(1), roce(up0, List.of(gid(2, "10.0.0.11", mvA))),
                listeners(listener(a, "0.0.0.0", TCP_PORT, 1)));
        Decision d = Resolver.resolve(
                s, req(Fixtures.DEV, "10.0.0.11", "10.0.0.99", OptionalInt.empty(), MAC_A), ResolverMode.NETSTACK);
        assertThat(d.outcome()).isEqualTo(Decision.Outcome.DELIVER);
        assertThat(d.netdev()).isEqualTo(mvA);
        assertThat(d.trace()).extracting(TraceStep::step).contains("rx-start", "rx-upper");
    }

    @Test
    void sameIpInTwoPodsIsWhereTheModesDisagree() {
        b.addr(a, 5, "10.0.0.50/24").addr(bb, 6, "10.0.0.50/24");
        RdmaTopology rdma = roce(up0, List.of(gid(4, "10.0.0.50", mvB), gid(5, "10.0.0.50", mvA)));
        var s = new HostState(b.snapshot(1), rdma,
                listeners(listener(a, "0.0.0.0", TCP_PORT, 1), listener(bb, "0.0.0.0", TCP_PORT, 2)));
        PacketMeta toA = req(Fixtures.DEV, "10.0.0.50", "10.0.0.99", OptionalInt.empty(), MAC_A);
        Decision kernel = Resolver.resolve(s, toA, ResolverMode.KERNEL);
        Decision netstack = Resolver.resolve(s, toA, ResolverMode.NETSTACK);
        assertThat(kernel.netns()).isEqualTo(bb);
        assertThat(netstack.netns()).isEqualTo(a);
        assertThat(kernel.sameAnswer(netstack)).isFalse();
    }

    @Test
    void ipvlanSlavesAreChosenByIpInEveryMode() {
        b.link(a, 8, "ipv0").ipvlan(2, 0, LinkInfo.Ipvlan.MODE_L2).add().addr(a, 8, "10.2.0.11/24");
        var s = new HostState(b.snapshot(1), roce(up0, List.of(gid(7, "10.2.0.11", new LinkRef(a, 8)))),
                listeners(listener(a, "0.0.0.0", TCP_PORT, 1)));
        Decision d = Resolver.resolve(s,
                req(Fixtures.DEV, "10.2.0.11", "10.2.0.99", OptionalInt.empty(), "02:00:00:00:00:02"),
                ResolverMode.NETSTACK);
        assertThat(d.netdev()).isEqualTo(new LinkRef(a, 8));
    }

    @Test
    void anInactiveBondSlaveDropsTheFrame() {
        b.link(host, 20, "bond0").bond(LinkInfo.Bond.MODE_ACTIVEBACKUP, 22).add().addr(host, 20, "10.5.0.1/24");
        b.link(host, 21, "eth1").bondSlave(20, false).add();
        b.link(host, 22, "eth2").bondSlave(20, true).add();
        RdmaTopology onBackup = roce(new LinkRef(host, 21), List.of(gid(1, "10.5.0.1", new LinkRef(host, 20))));
        var s = new HostState(b.snapshot(1), onBackup, listeners(listener(host, "0.0.0.0", TCP_PORT, 1)));
        Decision d = Resolver.resolve(s, req("10.5.0.1", "10.5.0.99"), ResolverMode.NETSTACK);
        assertThat(d.outcome()).isEqualTo(Decision.Outcome.DROP);
        RdmaTopology onActive = roce(new LinkRef(host, 22), List.of(gid(1, "10.5.0.1", new LinkRef(host, 20))));
        d = Resolver.resolve(new HostState(b.snapshot(1), onActive, s.listeners()), req("10.5.0.1", "10.5.0.99"),
                ResolverMode.NETSTACK);
        assertThat(d.outcome()).isEqualTo(Decision.Outcome.DELIVER);
        assertThat(d.netdev()).isEqualTo(new LinkRef(host, 20));
    }

    @Test
    void vlanDevicesAreChosenByVid() {
        // vlan 100 of up0, moved into pod A
        b.link(a, 7, "v100").vlan(2, 0, 100).add().addr(a, 7, "10.1.0.11/24");
        RdmaTopology rdma = roce(up0, List.of(vlanGid(6, "10.1.0.11", new LinkRef(a, 7), 100)));
        var s = new HostState(b.snapshot(1), rdma, listeners(listener(a, "0.0.0.0", TCP_PORT, 1)));
        Decision d = Resolver.resolve(
                s, req(Fixtures.DEV, "10.1.0.11", "10.1.0.99", OptionalInt.of(100), null), ResolverMode.NETSTACK);
        assertThat(d.trace()).extracting(TraceStep::step).contains("rx-vlan");
        assertThat(d.outcome()).isEqualTo(Decision.Outcome.DELIVER);
        assertThat(d.netdev()).isEqualTo(new LinkRef(a, 7));
        Decision untagged = Resolver.resolve(s, req("10.1.0.11", "10.1.0.99"), ResolverMode.NETSTACK);
        assertThat(untagged.outcome())
                .as("an untagged frame never reaches a vlan device")
                .isEqualTo(Decision.Outcome.DROP);
        Decision wrongVid = Resolver.resolve(
                s, req(Fixtures.DEV, "10.1.0.11", "10.1.0.99", OptionalInt.of(7), null), ResolverMode.NETSTACK);
        assertThat(wrongVid.outcome()).isEqualTo(Decision.Outcome.DROP);
    }
}
