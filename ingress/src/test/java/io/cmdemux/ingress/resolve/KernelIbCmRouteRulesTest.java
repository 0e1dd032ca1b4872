package io.cmdemux.ingress.resolve;

import static io.cmdemux.ingress.resolve.Fixtures.TCP_PORT;
import static io.cmdemux.ingress.resolve.Fixtures.gid;
import static io.cmdemux.ingress.resolve.Fixtures.listener;
import static io.cmdemux.ingress.resolve.Fixtures.listeners;
import static io.cmdemux.ingress.resolve.Fixtures.req;
import static io.cmdemux.ingress.resolve.Fixtures.roce;
import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.gid.Gid;
import io.cmdemux.gid.RdmaTopology;
import io.cmdemux.ingress.wire.PortSpace;
import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.netdev.InetAddresses;
import io.cmdemux.netdev.LinkInfo;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * docs/ARCHITECTURE.md §4.2: before it looks for a listener, ib_cm must reach the requester through
 * the matched GID entry's net device (ib_resolve_unicast_gid_dmac), and then use the REQ's own path
 * (cm_init_av_by_path). The IPv6 case is the lab's ipv6-lowest-gid-on-parent.
 */
class KernelIbCmRouteRulesTest {
    private final TwoPods pods = new TwoPods();

    private HostState state(RdmaTopology rdma, ListenerTable l) {
        return new HostState(pods.b.snapshot(1), rdma, l);
    }

    @Test
    void anIpv6GidWhoseDeviceHasNoRouteToTheRequesterIsDroppedWithoutAnAnswer() {
        // up0 holds 2001:db8::11 as a /128 only (no prefix route), and its entry is the lower one.
        pods.b.addr(pods.host, 2, "2001:db8::11/128").addr(pods.a, 5, "2001:db8::11/64");
        RdmaTopology rdma = roce(pods.up0, List.of(gid(2, "2001:db8::11", pods.up0), gid(3, "2001:db8::11", pods.mvA)));
        Decision d = Resolver.resolve(state(rdma, listeners(listener(pods.a, "::", TCP_PORT, 1))),
                req("2001:db8::11", "2001:db8::2"), ResolverMode.KERNEL);
        assertThat(d.outcome()).isEqualTo(Decision.Outcome.DROP);
        assertThat(d.drop()).isEqualTo(Decision.Drop.NO_ROUTE);
        assertThat(d.trace())
                .extracting(TraceStep::step)
                .containsSubsequence("gid-match", "resolve-requester")
                .doesNotContain("ib-cm-listen");
        // With the pod's entry the lower one, its prefix route reaches the requester, and the pod's listener takes it.
        RdmaTopology podFirst =
                roce(pods.up0, List.of(gid(2, "2001:db8::11", pods.mvA), gid(3, "2001:db8::11", pods.up0)));
        Decision ok = Resolver.resolve(state(podFirst, listeners(listener(pods.a, "::", TCP_PORT, 1))),
                req("2001:db8::11", "2001:db8::2"), ResolverMode.KERNEL);
        assertThat(ok.outcome()).isEqualTo(Decision.Outcome.DELIVER);
    }

    @Test
    void anIpv4GidNeedsNoRouteButADeviceThatIsUp() {
        // ip_route_output_key with flowi4_oif takes an unrouted destination as on-link: a /32 is enough.
        pods.b.addr(pods.host, 2, "192.0.2.11/32");
        RdmaTopology rdma = roce(pods.up0, List.of(gid(2, "192.0.2.11", pods.up0)));
        Decision onLink = Resolver.resolve(state(rdma, listeners(listener(pods.host, "0.0.0.0", TCP_PORT, 1))),
                req("192.0.2.11", "198.51.100.2"), ResolverMode.KERNEL);
        assertThat(onLink.trace()).extracting(TraceStep::step).contains("resolve-requester", "ib-cm-listen");
        assertThat(onLink.drop()).isNotEqualTo(Decision.Drop.NO_ROUTE);
        // A device that is down keeps its GID entries (roce_gid_mgmt ignores NETDEV_DOWN), but fails the lookup.
        pods.b
                .link(pods.a, 9, "down0")
                .macvlan(2, 0, LinkInfo.Macvlan.MODE_BRIDGE)
                .down()
                .add()
                .addr(pods.a, 9, "10.3.0.11/24");
        LinkRef down0 = new LinkRef(pods.a, 9);
        Decision down = Resolver.resolve(
                state(roce(pods.up0, List.of(gid(4, "10.3.0.11", down0))),
                        listeners(listener(pods.a, "0.0.0.0", TCP_PORT, 1))),
                req("10.3.0.11", "10.3.0.99"), ResolverMode.KERNEL);
        assertThat(down.outcome()).isEqualTo(Decision.Outcome.DROP);
        assertThat(down.drop()).isEqualTo(Decision.Drop.NO_ROUTE);
        assertThat(down.dropReason()).contains("down0 is down");
    }

    @Test
    void aReqWhosePathGidsAreOfTwoFamiliesIsRejectedWithInvalidGid() {
        RdmaTopology rdma = roce(pods.up0, List.of(gid(2, "10.0.0.11", pods.mvA)));
        PacketMeta m = req("10.0.0.11", "10.0.0.99");
        // The packet came from 10.0.0.99, but the REQ's primary local port GID is an IPv6 address.
        PacketMeta odd = new PacketMeta(m.key(), m.networkType(), m.dgid(), m.ourGid(), Gid.parse("2001:db8::99"),
                m.pkey(), m.bthPkey(), m.serviceId(), m.cmaVersion(), m.ipVersion(), m.dstIp(), m.srcIp(), m.srcPort(),
                m.vlan(), m.dmac(), false, m.localCommId(), m.qpType(), m.srcGid());
        Decision d = Resolver.resolve(
                state(rdma, listeners(listener(pods.a, "0.0.0.0", TCP_PORT, 1))), odd, ResolverMode.KERNEL);
        assertThat(d.outcome()).isEqualTo(Decision.Outcome.REJECT);
        assertThat(d.rejectReason()).isEqualTo(Decision.REJ_INVALID_GID);
        assertThat(d.trace())
                .extracting(TraceStep::step)
                .containsSubsequence("resolve-requester", "ib-cm-listen", "path-route");
        // A SIDR REQ has no path: the same fields are delivered to a UD listener.
        PacketMeta sidr = new PacketMeta(m.key(), m.networkType(), m.dgid(), null, m.srcGid(), m.pkey(), m.bthPkey(),
                PortSpace.UDP.serviceId(TCP_PORT), 0, 4, m.dstIp(), m.srcIp(), m.srcPort(), m.vlan(), m.dmac(), true,
                m.localCommId(), null, m.srcGid());
        Listener ud = new Listener(
                pods.a, PortSpace.UDP, TCP_PORT, InetAddresses.parse("0.0.0.0"), false, 0, 1, null, "test", QpType.UD);
        assertThat(Resolver.resolve(state(rdma, listeners(ud)), sidr, ResolverMode.KERNEL)
                        .outcome())
                .isEqualTo(Decision.Outcome.DELIVER);
    }
}
