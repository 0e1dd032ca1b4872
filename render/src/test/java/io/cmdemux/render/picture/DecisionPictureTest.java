package io.cmdemux.render.picture;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.gid.Gid;
import io.cmdemux.gid.GidEntry;
import io.cmdemux.gid.RdmaTopology;
import io.cmdemux.ingress.resolve.Decision;
import io.cmdemux.ingress.resolve.HostState;
import io.cmdemux.ingress.resolve.IngressKey;
import io.cmdemux.ingress.resolve.Listener;
import io.cmdemux.ingress.resolve.ListenerTable;
import io.cmdemux.ingress.resolve.NetworkType;
import io.cmdemux.ingress.resolve.PacketMeta;
import io.cmdemux.ingress.resolve.QpType;
import io.cmdemux.ingress.resolve.Resolver;
import io.cmdemux.ingress.resolve.ResolverMode;
import io.cmdemux.ingress.resolve.TraceStep;
import io.cmdemux.ingress.wire.PortSpace;
import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.netdev.HwAddr;
import io.cmdemux.netdev.InetAddresses;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * A decision's walk on the picture, from the resolver's own decisions on a host built from kernel
 * dump messages: the expected path comes from how the host was built (which pod holds which
 * address and MAC, which GID index the port's table gives it), and the kernel's order of steps.
 */
class DecisionPictureTest {
    private static final String SAME_IP = "10.80.9.9";
    private final Pods pods;
    private final TopologySnapshot topo;
    private final RdmaTopology rdma;
    private final Listener pod3Wrong;
    private final Listener pod3Any;
    private final HostState state;

    DecisionPictureTest() {
        pods = Pods.named(3);
        pods.b.addr(pods.pods.get(0), Pods.NET1, SAME_IP + "/16");
        pods.b.addr(pods.pods.get(1), Pods.NET1, SAME_IP + "/16");
        topo = pods.topology();
        rdma = Pods.rdma(topo);
        NetnsId pod3 = pods.pods.get(2);
        pod3Any = new Listener(pod3, PortSpace.TCP, 7471, InetAddresses.parse("0.0.0.0"), false, 0, 4, null, "any");
        pod3Wrong = new Listener(pod3, PortSpace.TCP, 7471, InetAddresses.parse("10.80.0.77"), false, 0, 5,
                null, "wrong");
        List<Listener> ls = List.of(
                new Listener(pods.pods.get(0), PortSpace.TCP, 7471, InetAddresses.parse("0.0.0.0"), false, 0,
                        1, null, "p1"),
                new Listener(pods.pods.get(1), PortSpace.TCP, 7471, InetAddresses.parse("0.0.0.0"), false, 0,
                        2, null, "p2"),
                pod3Any, pod3Wrong);
        state = new HostState(topo, rdma, new ListenerTable(1, ls));
    }

    private static PacketMeta req(String dst, int port, HwAddr dmac) {
        InetAddress d = InetAddresses.parse(dst);
        InetAddress s = InetAddresses.parse("10.80.200.1");
        return new PacketMeta(new IngressKey("rxe0", 1, 0, 0xffff), NetworkType.ROCE_V2, Gid.ofIp(d), Gid.ofIp(d),
                Gid.ofIp(s), 0xffff, 0xffff, PortSpace.TCP.serviceId(port), 0, 4, d, s, 40000, OptionalInt.empty(),
                dmac, false, 0x1234, QpType.RC, Gid.ofIp(s));
    }

    private Graph draw(Decision d, Decision other) {
        return DecisionOverlay.draw(topo, rdma, new DecisionOverlay.Scene(d, other, List.of("CM REQ"),
                List.of("caption"), "hint"));
    }

    /** The walk edges walk_1, walk_2, ... in order. */
    private static List<Graph.Edge> walk(Graph g) {
        List<Graph.Edge> out = new ArrayList<>();
        for (int i = 1; ; i++) {
            String id = "walk_" + i;
            Graph.Edge e = g.edges().stream().filter(x -> x.id.equals(id)).findFirst().orElse(null);
            if (e == null) {
                return out;
            }
            out.add(e);
        }
    }

    /** The step names on the walk's edges, in order, without their numbers and slots. */
    private static List<String> stepsOnWalk(List<Graph.Edge> walk) {
        List<String> out = new ArrayList<>();
        for (Graph.Edge e : walk) {
            for (String line : e.label) {
                if (line.startsWith("≠")) {
                    continue;
                }
                String s = line.substring(line.indexOf(' ') + 1);
                out.add(s.contains(":") ? s.substring(0, s.indexOf(':')) : s);
            }
        }
        return out;
    }

    private static List<String> stepNames(Decision d) {
        return d.trace().stream().map(TraceStep::step).toList();
    }

    private int lowestGidIndexFor(String ip) {
        return rdma.devices().get(0).ports().get(0).gids().stream()
                .filter(e -> e.gid().equals(Gid.ofIp(InetAddresses.parse(ip))))
                .mapToInt(GidEntry::index).min().orElseThrow();
    }

    private LinkRef ndevOf(int index) {
        return rdma.devices().get(0).ports().get(0).gid(index).orElseThrow().ndev();
    }

    @Test
    void theKernelWalkGoesPortGidEntryNetdevNamespaceListenerWithEveryStepOnceInOrder() {
        Decision d = Resolver.resolve(state, req(Pods.ip(2), 7471, null), ResolverMode.KERNEL);
        Graph g = draw(d, null);
        List<Graph.Edge> walk = walk(g);
        String pod3Net1 = Ids.link(pods.net1(2));
        String pod3 = Ids.namespace(pods.pods.get(2));
        assertThat(walk).extracting(e -> e.from + ">" + e.to).containsExactly(
                "request>port_rxe0_1", "port_rxe0_1>" + pod3Net1, pod3Net1 + ">" + pod3,
                        pod3 + ">" + Ids.listener(pod3Any));
        assertThat(stepsOnWalk(walk)).containsExactly("ingress-port", "gid-match", "resolve-requester", "ib-cm-listen",
                "path-route", "cma-header", "net-dev", "validate-net-dev",
                "netns", "listener", "qp-type", "acquire-dev");
        assertThat(stepsOnWalk(walk)).isEqualTo(stepNames(d));
        assertThat(walk.get(1).label.get(0)).isEqualTo("2 gid-match: index " + lowestGidIndexFor(Pods.ip(2)));
        for (String node : List.of("port_rxe0_1", pod3Net1, pod3, Ids.listener(pod3Any))) {
            assertThat(g.node(node).classes).as(node).contains("walk");
        }
    }

    @Test
    void aListenerTheKernelTriedAndTurnedDownIsDimmedWithItsReason() {
        Decision d = Resolver.resolve(state, req(Pods.ip(2), 7471, null), ResolverMode.KERNEL);
        Graph.Node wrong = draw(d, null).node(Ids.listener(pod3Wrong));
        assertThat(wrong.classes).contains("dim").doesNotContain("walk");
        // The tooltip numbers the step as the trace does: the listener step, after the ib_cm and rdma_cm ones.
        int listenerStep = stepNames(d).indexOf("listener") + 1;
        assertThat(listenerStep).isGreaterThan(1);
        assertThat(wrong.tooltip).startsWith(listenerStep + " listener rejected this: bound to 10.80.0.77, not "
                + Pods.ip(2));
    }

    @Test
    void theNetstackWalkClimbsFromThePortsNetdevToTheMacvlanThatOwnsTheMac() {
        LinkRef net1 = pods.net1(2);
        Decision d = Resolver.resolve(state, req(Pods.ip(2), 7471, topo.link(net1).mac()), ResolverMode.NETSTACK);
        List<Graph.Edge> walk = walk(draw(d, null));
        assertThat(walk).extracting(e -> e.to).startsWith("port_rxe0_1", Ids.link(pods.up()), Ids.link(net1),
                Ids.namespace(net1.netns()));
        assertThat(stepsOnWalk(walk)).isEqualTo(stepNames(d));
        Graph g = draw(d, null);
        for (int other : List.of(0, 1)) {
            Graph.Node n = g.node(Ids.link(pods.net1(other)));
            assertThat(n.classes).as("pod %d's macvlan, not the frame's", other).contains("dim");
            assertThat(n.tooltip).contains("is not the destination " + topo.link(net1).mac());
        }
    }

    @Test
    void theSameIpInTwoPodsMarksTheGidMatchWhereKernelAndNetstackPart() {
        int winner = lowestGidIndexFor(SAME_IP);
        LinkRef kernelNdev = ndevOf(winner);
        int loser = kernelNdev.equals(pods.net1(0)) ? 1 : 0;
        assertThat(kernelNdev).isIn(pods.net1(0), pods.net1(1));
        LinkRef loserNet1 = pods.net1(loser);
        PacketMeta meta = req(SAME_IP, 7471, topo.link(loserNet1).mac());
        Decision kernel = Resolver.resolve(state, meta, ResolverMode.KERNEL);
        Decision netstack = Resolver.resolve(state, meta, ResolverMode.NETSTACK);
        Graph g = draw(kernel, netstack);

        List<Graph.Edge> walk = walk(g);
        Graph.Edge marked = walk.stream().filter(e -> e.classes.contains("disagree")).findFirst().orElseThrow();
        assertThat(marked.to).isEqualTo(Ids.link(kernelNdev));
        assertThat(marked.label.get(0)).isEqualTo("2 gid-match: index " + winner);
        assertThat(walk.stream().filter(e -> e.classes.contains("disagree"))).hasSize(1);
        Graph.Edge other = g.edges().stream().filter(e -> e.id.equals("other_mode")).findFirst().orElseThrow();
        assertThat(other.to).isEqualTo(Ids.link(loserNet1));
        assertThat(g.node(DecisionOverlay.NOTE).tooltip).contains("kernel and netstack modes disagree at step 2"
                + " gid-match").contains("hint");

        GidEntry shadowed = rdma.devices().get(0).ports().get(0).gids().stream()
                .filter(e -> e.gid().equals(Gid.ofIp(InetAddresses.parse(SAME_IP))) && e.index() != winner).findFirst()
                .orElseThrow();
        Graph.Edge dim = g.edges().stream().filter(e -> e.id.equals("rejected_gid_" + shadowed.index())).findFirst()
                .orElseThrow();
        assertThat(dim.classes).contains("dim");
        assertThat(dim.to).isEqualTo(Ids.link(shadowed.ndev()));
        assertThat(dim.tooltip).contains("shadowed by index " + winner);
    }

    @Test
    void aRejectionEndsTheWalkAtTheOutcomeWithTheStepsAfterTheLastNode() {
        Decision d = Resolver.resolve(state, req(Pods.ip(2), 9999, null), ResolverMode.KERNEL);
        assertThat(d.rejectReason()).isEqualTo(Decision.REJ_INVALID_SERVICE_ID);
        Graph g = draw(d, null);
        List<Graph.Edge> walk = walk(g);
        Graph.Edge last = walk.get(walk.size() - 1);
        assertThat(last.to).isEqualTo(DecisionOverlay.OUTCOME);
        assertThat(last.classes).contains("walk-end");
        assertThat(g.node(DecisionOverlay.OUTCOME).label).containsExactly("REJECT 8", "invalid service ID");
        assertThat(stepsOnWalk(walk)).isEqualTo(stepNames(d));
    }

    @Test
    void aRequestNoGidMatchesIsDroppedAtThePort() {
        Decision d = Resolver.resolve(state, req("10.99.0.1", 7471, null), ResolverMode.KERNEL);
        assertThat(d.outcome()).isEqualTo(Decision.Outcome.DROP);
        List<Graph.Edge> walk = walk(draw(d, null));
        assertThat(walk).extracting(e -> e.to).containsExactly("port_rxe0_1", DecisionOverlay.OUTCOME);
        assertThat(stepsOnWalk(walk)).isEqualTo(stepNames(d));
    }
}
