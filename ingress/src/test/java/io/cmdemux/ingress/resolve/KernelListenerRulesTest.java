package io.cmdemux.ingress.resolve;

import static io.cmdemux.ingress.resolve.Fixtures.TCP_PORT;
import static io.cmdemux.ingress.resolve.Fixtures.gid;
import static io.cmdemux.ingress.resolve.Fixtures.listeners;
import static io.cmdemux.ingress.resolve.Fixtures.req;
import static io.cmdemux.ingress.resolve.Fixtures.roce;
import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.gid.Gid;
import io.cmdemux.gid.RdmaTopology;
import io.cmdemux.ingress.wire.PortSpace;
import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.testkit.DumpBuilder;
import io.cmdemux.netdev.InetAddresses;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the RDMA CM checks once cma_find_listener has found its listener (cma_ib_req_handler):
 * the port space of the bind list, the QP types (cma_ib_check_req_qp_type) and the new id's
 * device (cma_ib_acquire_dev). Pods A and B have macvlans of the RoCE port's netdev up0.
 */
class KernelListenerRulesTest {
    private final TwoPods pods = new TwoPods();
    private final DumpBuilder b = pods.b;
    private final NetnsId host = pods.host;
    private final NetnsId a = pods.a;
    private final NetnsId bb = pods.bb;
    private final LinkRef up0 = pods.up0;
    private final LinkRef mvA = pods.mvA;
    private final LinkRef mvB = pods.mvB;

    private HostState state(Listener... ls) {
        RdmaTopology rdma = roce(up0,
                List.of(
                        gid(0, "fe80::ff:fe00:2", up0),
                        gid(1, "10.0.0.1", up0),
                        gid(2, "10.0.0.11", mvA),
                        gid(3, "10.0.0.12", mvB)));
        return new HostState(b.snapshot(1), rdma, listeners(ls));
    }

    private static Listener listener(NetnsId ns, PortSpace ps, String ip, QpType qp, long order) {
        return new Listener(
                ns, ps, TCP_PORT, ip == null ? null : InetAddresses.parse(ip), false, 0, order, null, "test", qp);
    }

    /** The same request in another port space, or as a SIDR REQ, or of another QP type. */
    private static PacketMeta as(PacketMeta m, PortSpace ps, boolean sidr, QpType qp) {
        return new PacketMeta(m.key(), m.networkType(), m.dgid(), m.ourGid(), m.peerGid(), m.pkey(), m.bthPkey(),
                ps.serviceId(TCP_PORT), m.cmaVersion(), m.ipVersion(), m.dstIp(), m.srcIp(), m.srcPort(), m.vlan(),
                m.dmac(), sidr, m.localCommId(), sidr ? null : qp, m.srcGid());
    }

    @Test
    void anIbPortSpaceRequestWithAnIpHeaderGoesToThePodsIbBindListLikeTcp() {
        Listener podIb = listener(a, PortSpace.IB, "0.0.0.0", QpType.RC, 1);
        Decision d = Resolver.resolve(
                state(podIb), as(req("10.0.0.11", "10.0.0.99"), PortSpace.IB, false, QpType.RC), ResolverMode.KERNEL);
        assertThat(d.outcome()).isEqualTo(Decision.Outcome.DELIVER);
        assertThat(d.netdev()).isEqualTo(mvA);
        assertThat(d.listener()).isEqualTo(podIb);
        assertThat(d.trace()).filteredOn(t -> t.step().equals("bind-list") || t.step().equals("listener"))
                .allSatisfy(t -> assertThat(t.detail()).contains("RDMA_PS_IB"));
    }

    @Test
    void thePortSpaceOfTheServiceIdChoosesTheBindListNotTheListenersPort() {
        // pod A listens on 7471 in PS_TCP, pod B on 7471 in PS_IB:
        // the crossed requests pass ib_cm and find no bind list.
        HostState s = state(listener(a, PortSpace.TCP, "0.0.0.0", QpType.RC, 1),
                listener(bb, PortSpace.IB, "0.0.0.0", QpType.RC, 2));
        PacketMeta toA = req("10.0.0.11", "10.0.0.99");
        PacketMeta toB = req("10.0.0.12", "10.0.0.99");
        assertThat(kernel(s, as(toA, PortSpace.IB, false, QpType.RC)).rejectReason()).isEqualTo(28);
        assertThat(kernel(s, as(toB, PortSpace.TCP, false, QpType.RC)).rejectReason()).isEqualTo(28);
        assertThat(kernel(s, as(toB, PortSpace.IB, false, QpType.RC)).netns()).isEqualTo(bb);
        // No listener of the request's port space anywhere: ib_cm has none for that service ID.
        assertThat(kernel(s, as(toA, PortSpace.UDP, true, null)).rejectReason()).isEqualTo(Decision.SIDR_UNSUPPORTED);
    }

    @Test
    void aSidrRequestNeedsAUdListenerAndAReqItsOwnQpType() {
        PacketMeta rc = req("10.0.0.11", "10.0.0.99");
        HostState rcListener = state(listener(a, PortSpace.TCP, "0.0.0.0", QpType.RC, 1));
        HostState udListener = state(listener(a, PortSpace.UDP, "0.0.0.0", QpType.UD, 1));
        // A SIDR REQ in the TCP space reaches an RC listener: cma_ib_check_req_qp_type fails, SIDR REP IB_SIDR_REJECT.
        Decision sidr = kernel(rcListener, as(rc, PortSpace.TCP, true, null));
        assertThat(sidr.outcome()).isEqualTo(Decision.Outcome.REJECT);
        assertThat(sidr.rejectReason()).isEqualTo(Decision.SIDR_REJECT);
        assertThat(sidr.trace()).extracting(TraceStep::step).containsSubsequence("listener", "qp-type");
        // An RC REQ to a UD listener of the UDP space, and a UC REQ to an RC listener: REJ 28.
        assertThat(kernel(udListener, as(rc, PortSpace.UDP, false, QpType.RC)).rejectReason()).isEqualTo(28);
        assertThat(kernel(rcListener, as(rc, PortSpace.TCP, false, QpType.UC)).rejectReason()).isEqualTo(28);
        // A transport no rdma_cm id has (the kernel's qp_type 0) matches no listener.
        assertThat(kernel(rcListener, as(rc, PortSpace.TCP, false, null)).rejectReason()).isEqualTo(28);
        // The matching pairs are delivered.
        assertThat(kernel(udListener, as(rc, PortSpace.UDP, true, null)).outcome())
                .isEqualTo(Decision.Outcome.DELIVER);
        HostState xrcListener = state(listener(a, PortSpace.IB, "0.0.0.0", QpType.XRC_TGT, 1));
        assertThat(kernel(xrcListener, as(rc, PortSpace.IB, false, QpType.XRC_TGT)).outcome())
                .isEqualTo(Decision.Outcome.DELIVER);
    }

    private static Decision kernel(HostState s, PacketMeta m) {
        return Resolver.resolve(s, m, ResolverMode.KERNEL);
    }

    @Test
    void theNewIdNeedsTheGidOfTheHeadersAddressOnTheRequestsNetDevice() {
        // The frame went to 10.0.0.11's GID (pod A's net device), but the header names 10.0.0.12 (pod B's address).
        PacketMeta m = req("10.0.0.11", "10.0.0.99");
        PacketMeta odd = new PacketMeta(m.key(), m.networkType(), m.dgid(), m.ourGid(), m.peerGid(), m.pkey(),
                m.bthPkey(), m.serviceId(), m.cmaVersion(), 4, InetAddresses.parse("10.0.0.12"), m.srcIp(), m.srcPort(),
                m.vlan(), m.dmac(), false, m.localCommId(), QpType.RC, m.srcGid());
        Decision d =
                Resolver.resolve(state(listener(a, PortSpace.TCP, "0.0.0.0", QpType.RC, 1)), odd, ResolverMode.KERNEL);
        assertThat(d.netdev()).isEqualTo(mvA);
        assertThat(d.outcome()).isEqualTo(Decision.Outcome.REJECT);
        assertThat(d.rejectReason()).isEqualTo(28);
        assertThat(d.trace()).extracting(TraceStep::step).containsSubsequence("listener", "acquire-dev");
        assertThat(Resolver.resolve(state(listener(a, PortSpace.TCP, "0.0.0.0", QpType.RC, 1)), m, ResolverMode.KERNEL)
                        .outcome())
                .isEqualTo(Decision.Outcome.DELIVER);
    }

    @Test
    void anIpoibIdCannotAcquireARocePortNorCanAnAfIbListener() {
        PacketMeta m = req("10.0.0.11", "10.0.0.99");
        Decision ipoib = Resolver.resolve(state(listener(a, PortSpace.IPOIB, "0.0.0.0", QpType.UD, 1)),
                as(m, PortSpace.IPOIB, true, null), ResolverMode.KERNEL);
        assertThat(ipoib.rejectReason()).isEqualTo(Decision.SIDR_REJECT);
        assertThat(ipoib.trace()).extracting(TraceStep::step).contains("acquire-dev");
        // An AF_IB listener takes any header (cma_match_private_data), but its new id has no IP to find a RoCE GID by.
        Decision afIbListener =
                Resolver.resolve(state(listener(a, PortSpace.TCP, null, QpType.RC, 1)), m, ResolverMode.KERNEL);
        assertThat(afIbListener.rejectReason()).isEqualTo(28);
        assertThat(afIbListener.netns()).isEqualTo(a);
    }

    @Test
    void theCacheKeepsASidrRequestApartFromAReqWithTheSameFields() {
        HostState s = state(listener(a, PortSpace.UDP, "0.0.0.0", QpType.UD, 1));
        DecisionCache cache = new DecisionCache(100);
        PacketMeta sidr = as(req("10.0.0.11", "10.0.0.99"), PortSpace.UDP, true, null);
        PacketMeta reqRc = as(req("10.0.0.11", "10.0.0.99"), PortSpace.UDP, false, QpType.RC);
        assertThat(cache.resolve(s, sidr, ResolverMode.KERNEL).outcome()).isEqualTo(Decision.Outcome.DELIVER);
        assertThat(cache.resolve(s, reqRc, ResolverMode.KERNEL).outcome()).isEqualTo(Decision.Outcome.REJECT);
        assertThat(Gid.ofIp(sidr.dstIp())).isEqualTo(reqRc.dgid());
    }
}
