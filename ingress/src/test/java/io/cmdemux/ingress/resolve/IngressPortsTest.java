package io.cmdemux.ingress.resolve;

import static io.cmdemux.ingress.resolve.Fixtures.gid;
import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.gid.Gid;
import io.cmdemux.gid.GidEntry;
import io.cmdemux.gid.PkeyTable;
import io.cmdemux.gid.RdmaDevice;
import io.cmdemux.gid.RdmaPort;
import io.cmdemux.gid.RdmaTopology;
import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.testkit.DumpBuilder;
import io.cmdemux.netdev.HwAddr;
import io.cmdemux.netdev.LinkInfo;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * DESIGN §5.3 step 0: the port a frame arrives on is the RDMA device of the netdev it lands on
 * after bond_handle_frame. rxe0 sits on an active-backup bond0, rxe9 on its active slave vA; both
 * hold the pod's address, in opposite orders.
 */
class IngressPortsTest {
    private static final String MAC = "02:00:00:00:00:0a";
    private final DumpBuilder b = new DumpBuilder();
    private final NetnsId host = b.host();
    private final NetnsId pod = b.pod("pod1", 0);
    private final LinkRef vA = new LinkRef(host, 2);
    private final LinkRef bond0 = new LinkRef(host, 3);
    private final LinkRef m1 = new LinkRef(pod, 5);

    private HostState state(int activeSlave, List<RdmaDevice> devices) {
        b.link(host, 1, "lo").arphrd(772).add();
        b.link(host, 2, "vA").mac(MAC).bondSlave(3, activeSlave == 2).master(3).add();
        b.link(host, 3, "bond0")
                .mac(MAC)
                .bond(LinkInfo.Bond.MODE_ACTIVEBACKUP, activeSlave)
                .add()
                .addr(host, 3, "192.0.2.1/24");
        b.link(pod, 1, "lo").arphrd(772).add();
        b.link(pod, 5, "m1").macvlan(3, 0, LinkInfo.Macvlan.MODE_BRIDGE).add().addr(pod, 5, "192.0.2.11/24");
        return new HostState(b.snapshot(1), new RdmaTopology(1, RdmaTopology.NetnsMode.SHARED, devices),
                Fixtures.listeners(Fixtures.listener(pod, "0.0.0.0", Fixtures.TCP_PORT, 1)));
    }

    private static RdmaDevice device(String name, LinkRef netdev, List<GidEntry> gids) {
        return new RdmaDevice(name, 0x0200aafffe000001L, true, null,
                List.of(new RdmaPort(
                        1,
                        RdmaPort.LinkLayer.ETHERNET,
                        "ACTIVE",
                        0x0200aafffe000001L,
                        List.of(),
                        gids,
                        new PkeyTable(List.of(0xffff)),
                        netdev,
                        List.of())));
    }

    /** The slave's device listed first, so that "the first device holding the GID" would pick it. */
    private List<RdmaDevice> bothDevices() {
        return List.of(
                device("rxe9", vA,
                        List.of(gid(1, "192.0.2.1", bond0), gid(2, "192.0.2.11", bond0), gid(3, "192.0.2.11", m1))),
                device(
                        "rxe0",
                        bond0,
                        List.of(gid(1, "192.0.2.1", bond0), gid(2, "192.0.2.11", m1), gid(3, "192.0.2.11", bond0))));
    }

    @Test
    void aFrameOnAnActiveBondPortBelongsToTheBondsDevice() {
        HostState s = state(2, bothDevices());
        IngressPorts.Choice c = IngressPorts.forFrame(s, Gid.parse("192.0.2.11"), HwAddr.parse(MAC)).orElseThrow();
        assertThat(c.device()).isEqualTo("rxe0");
        assertThat(c.why().why()).contains("bond_handle_frame").contains("rxe0/1");
        assertThat(c.why().candidates()).hasSize(2);
        // Without the destination MAC (a raw-IP capture) the bond rule alone decides.
        assertThat(IngressPorts.forFrame(s, Gid.parse("192.0.2.11"), null).orElseThrow().device()).isEqualTo("rxe0");
        // A tap on the slave's netdev sees the frame first; it is the bond's.
        assertThat(IngressPorts.ownerOfArrival(s, "rxe9")).isEqualTo("rxe0");
        assertThat(IngressPorts.ownerOfArrival(s, "rxe0")).isEqualTo("rxe0");
    }

    @Test
    void thatPortsOwnTableThenDecides() {
        HostState s = state(2, bothDevices());
        IngressPorts.Choice c = IngressPorts.forFrame(s, Gid.parse("192.0.2.11"), HwAddr.parse(MAC)).orElseThrow();
        PacketMeta m = Fixtures.req(c.device(), "192.0.2.11", "192.0.2.2", java.util.OptionalInt.empty(), MAC);
        Decision d = Resolver.resolve(s, m, ResolverMode.KERNEL);
        assertThat(d.outcome()).isEqualTo(Decision.Outcome.DELIVER);
        assertThat(d.netdev()).isEqualTo(m1); // rxe0's lower index is the pod's; rxe9's would be bond0's
        assertThat(d.withFirstStep(c.why()).trace().get(0).step()).isEqualTo("arrival");
        assertThat(d.withFirstStep(c.why()).trace()).hasSize(d.trace().size() + 1);
    }

    @Test
    void anInactiveSlaveKeepsItsFramesAndOneHolderNeedsNoRule() {
        // vA is not the active slave (ifindex 9 is): bond_handle_frame does not hand its frames up.
        HostState s = state(9, bothDevices());
        assertThat(IngressPorts.ownerOfArrival(s, "rxe9")).isEqualTo("rxe9");
        HostState one = state(2, List.of(device("rxe0", bond0, List.of(gid(1, "192.0.2.11", m1)))));
        IngressPorts.Choice c = IngressPorts.forFrame(one, Gid.parse("192.0.2.11"), null).orElseThrow();
        assertThat(c.device()).isEqualTo("rxe0");
        assertThat(c.why().why()).contains("the only RoCE port");
        assertThat(IngressPorts.forFrame(one, Gid.parse("192.0.2.99"), null)).isEmpty();
    }
}
