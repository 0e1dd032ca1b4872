package io.cmdemux.gid;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.namespaces.testkit.DumpBuilder;
import io.cmdemux.netdev.LinkInfo;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * A namespace's own RDMA interfaces: on an IB port, IPoIB children (and ipvlans on them) whose parent chain
 * reaches the port's IPoIB interface, with the port GID at index 0; on RoCE, a macvlan whose IP has no GID
 * yet is listed with none, so that cmdemux-env can wait for it; a veth is no RDMA interface.
 */
class OwnInterfacesTest {
    private final DumpBuilder b = new DumpBuilder();
    private final NetnsId host = b.host();
    private final NetnsId ibPod = b.pod("ibpod", 1);
    private final NetnsId rocePod = b.pod("rocepod", 2);
    private final NetnsId vethPod = b.pod("vethpod", 3);

    private RdmaTopology rdma() {
        RdmaPort ib = new RdmaPort(1, RdmaPort.LinkLayer.INFINIBAND, "ACTIVE", 0x0002c90300a0b0c1L, List.of(),
                List.of(new GidEntry(0, Gid.parse("fe80::2:c903:a0:b0c1"), GidType.IB, null, OptionalInt.empty()),
                        new GidEntry(1, Gid.parse("fe80::2:c903:a0:b0c9"), GidType.IB, null, OptionalInt.empty())),
                new PkeyTable(List.of(0xffff, 0x8001)), null, List.of(new LinkRef(host, 3)));
        RdmaPort roce = new RdmaPort(1, RdmaPort.LinkLayer.ETHERNET, "ACTIVE", 0x0200aafffe000002L, List.of(),
                List.of(new GidEntry(0, Gid.parse("fe80::ff:fe00:2"), GidType.ROCE_V2, new LinkRef(host, 2),
                        OptionalInt.empty())),
                new PkeyTable(List.of(0xffff)), new LinkRef(host, 2), List.of());
        return new RdmaTopology(1, RdmaTopology.NetnsMode.SHARED, List.of(
                new RdmaDevice("mlx5_0", 0x0002c90300a0b0c0L, false, null, List.of(ib)),
                new RdmaDevice("rxe0", 0x0200aafffe000002L, true, null, List.of(roce))));
    }

    private TopologySnapshot snapshot() {
        b.link(host, 1, "lo").arphrd(772).add();
        b.link(host, 2, "up0").mac("02:00:00:00:00:02").add();
        b.link(host, 3, "ib0").ipoib(0xffff, "fe80::2:c903:a0:b0c1", 0x48).add();
        b.link(ibPod, 1, "lo").arphrd(772).add();
        b.link(ibPod, 4, "ib0.8001").ipoib(0x8001, "fe80::2:c903:a0:b0c1", 0x49).parent(3, 0).add()
                .addr(ibPod, 4, "10.9.0.2/24");
        b.link(ibPod, 5, "ipvl0").ipvlan(4, -1, LinkInfo.Ipvlan.MODE_L2).add();
        b.link(rocePod, 1, "lo").arphrd(772).add();
        b.link(rocePod, 6, "net1").macvlan(2, 0, LinkInfo.Macvlan.MODE_BRIDGE).add().addr(rocePod, 6, "10.0.0.5/24");
        b.link(vethPod, 1, "lo").arphrd(772).add();
        b.link(vethPod, 7, "eth0").kind("veth").add().addr(vethPod, 7, "10.0.0.6/24");
        return b.snapshot(1);
    }

    @Test
    void anIpoibChildAndAnIpvlanOnItUseThePortGidAtIndexZero() {
        List<OwnInterfaces.Interface> own = OwnInterfaces.of(snapshot(), rdma(), ibPod);

        assertThat(own).extracting(OwnInterfaces.Interface::ifname).containsExactly("ib0.8001", "ipvl0");
        OwnInterfaces.Interface i = own.get(0);
        assertThat(i.device()).isEqualTo("mlx5_0");
        assertThat(i.roce()).isFalse();
        assertThat(i.gids()).extracting(GidEntry::index).containsExactly(0);
        assertThat(i.chosen()).containsOnlyKeys(GidType.IB).containsEntry(GidType.IB, 0);
    }

    @Test
    void aMacvlanWhoseGidIsNotInTheTableYetIsListedWithNone() {
        List<OwnInterfaces.Interface> own = OwnInterfaces.of(snapshot(), rdma(), rocePod);

        assertThat(own).singleElement().satisfies(i -> {
            assertThat(i.ifname()).isEqualTo("net1");
            assertThat(i.device()).isEqualTo("rxe0");
            assertThat(i.gids()).isEmpty();
            assertThat(i.chosen()).isEmpty();
        });
    }

    @Test
    void aVethIsNoRdmaInterfaceAndAnUnknownNamespaceHasNone() {
        TopologySnapshot snap = snapshot();

        assertThat(OwnInterfaces.of(snap, rdma(), vethPod)).isEmpty();
        assertThat(OwnInterfaces.of(snap, rdma(), new NetnsId(vethPod.dev(), 1))).isEmpty();
    }
}
