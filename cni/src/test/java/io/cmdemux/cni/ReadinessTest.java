package io.cmdemux.cni;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.gid.Gid;
import io.cmdemux.gid.GidEntry;
import io.cmdemux.gid.GidType;
import io.cmdemux.gid.PkeyTable;
import io.cmdemux.gid.RdmaDevice;
import io.cmdemux.gid.RdmaPort;
import io.cmdemux.gid.RdmaTopology;
import io.cmdemux.gid.SoftPortSpec;
import io.cmdemux.gid.SoftRocePort;
import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.NetnsState;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.namespaces.testkit.DumpBuilder;
import io.cmdemux.netdev.Address;
import io.cmdemux.netdev.InetAddresses;
import io.cmdemux.netdev.Link;
import io.cmdemux.pods.Attachment;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * The readiness checks on topologies built as the kernel would dump them. Expected GID indices
 * follow the layout every RoCE NIC shows (show_gids): the default GIDs of the port's MAC at the
 * reserved low indices, one per GID type, then one entry per type for each IP, v1 before v2.
 */
class ReadinessTest {
    private static final int MACVLAN_BRIDGE = 4;
    private static final String POD = "/run/netns/pod1";

    /** host: uplink (ifindex 2); pod1: net1, a macvlan on uplink, 10.77.0.2/24. */
    private static DumpBuilder macvlanPod(DumpBuilder b, String podName, int hostNsid, String ip) {
        NetnsId pod = b.pod(podName, hostNsid);
        b.link(pod, 1, "lo").kind(null).add();
        b.link(pod, 2, "net1").macvlan(2, 0, MACVLAN_BRIDGE).add();
        b.addr(pod, 2, ip + "/24");
        return b;
    }

    private static DumpBuilder host() {
        DumpBuilder b = new DumpBuilder();
        b.link(b.host(), 2, "uplink").kind("veth").add();
        return b;
    }

    private static RdmaView view(TopologySnapshot snap, RdmaDevice... devices) {
        return new RdmaView(snap.generation(), snap, new RdmaTopology(snap.generation(), RdmaTopology.NetnsMode.SHARED,
                List.of(devices)));
    }

    private static FreshNetns fresh(TopologySnapshot snap, String name) {
        NetnsState s = snap.findNamespace(name).orElseThrow();
        return new FreshNetns(s.id(), new ArrayList<>(s.links().values()), s.addresses());
    }

    private static ExpectedInterface net1(String ip) {
        return new ExpectedInterface("net1", List.of(InetAddresses.parse(ip)));
    }

    @Test
    void macvlanOnSoftPortUplinkGetsTheIndexAfterTheDefaultGidsLikeARoceNic() {
        TopologySnapshot snap = macvlanPod(host(), "pod1", 1, "10.77.0.2").snapshot(1);
        RdmaDevice soft0 = SoftRocePort.compute(SoftPortSpec.parse("soft0=uplink:v1,v2"), snap);

        ReadinessReport r = Readiness.evaluate(view(snap, soft0), fresh(snap, "pod1"), POD, List.of(net1("10.77.0.2")),
                GidType.ROCE_V2);

        assertThat(r.problems()).isEmpty();
        Attachment a = r.ready().get(0);
        assertThat(a.device()).isEqualTo("soft0");
        assertThat(a.ifindex()).isEqualTo(2);
        // defaults at 0 (v1) and 1 (v2); 10.77.0.2 at 2 (v1) and 3 (v2): the NCCL_IB_GID_INDEX=3 of every RoCE NIC
        assertThat(a.gids()).singleElement().satisfies(g -> {
            assertThat(g.index()).isEqualTo(3);
            assertThat(g.gid()).isEqualTo(Gid.parse("::ffff:10.77.0.2"));
        });
        assertThat(Readiness.evaluate(view(snap, soft0), fresh(snap, "pod1"), POD, List.of(net1("10.77.0.2")),
                GidType.ROCE_V1).ready().get(0).gids().get(0).index())
                .isEqualTo(2);
    }

    @Test
    void vethInThePodIsOnNoRdmaPortAndTheFixNamesTheUplinkAsMaster() {
        DumpBuilder b = host();
        NetnsId pod = b.pod("pod1", 1);
        b.link(b.host(), 7, "vethpod1").kind("veth").parent(2, 1).add();
        b.link(pod, 2, "net1").kind("veth").parent(7, 0).add();
        b.addr(pod, 2, "10.77.0.2/24");
        TopologySnapshot snap = b.snapshot(1);
        RdmaDevice soft0 = SoftRocePort.compute(SoftPortSpec.parse("soft0=uplink"), snap);

        ReadinessReport r = Readiness.evaluate(view(snap, soft0), fresh(snap, "pod1"), POD, List.of(net1("10.77.0.2")),
                GidType.ROCE_V2);

        assertThat(r.ready()).isEmpty();
        assertThat(r.problems()).singleElement().satisfies(p -> {
            assertThat(p.code()).isEqualTo(CniError.NOT_ON_RDMA_PORT);
            assertThat(p.transientProblem()).isFalse();
            assertThat(p.message()).contains("net1 (veth").contains("soft0/1 on uplink");
            assertThat(p.fix()).contains("\"master\": \"uplink\"");
        });
    }

    @Test
    void anAddressTheKernelNoLongerHasFailsAtOnceEvenWhileTheViewStillShowsIt() {
        TopologySnapshot snap = macvlanPod(host(), "pod1", 1, "10.77.0.2").snapshot(1);
        RdmaDevice soft0 = SoftRocePort.compute(SoftPortSpec.parse("soft0=uplink"), snap);
        FreshNetns f = fresh(snap, "pod1");
        FreshNetns withoutIp = new FreshNetns(f.id(), f.links(), List.of());

        ReadinessReport r = Readiness.evaluate(view(snap, soft0), withoutIp, POD, List.of(net1("10.77.0.2")),
                GidType.ROCE_V2);

        assertThat(r.converging()).isFalse();
        assertThat(r.problems()).singleElement().satisfies(p -> {
            assertThat(p.code()).isEqualTo(CniError.ADDRESS_MISSING);
            assertThat(p.message()).contains("10.77.0.2").contains("net1");
        });
        ReadinessReport gone = Readiness.evaluate(view(snap, soft0), new FreshNetns(f.id(), List.of(), List.of()), POD,
                List.of(net1("10.77.0.2")), GidType.ROCE_V2);
        assertThat(gone.problems()).extracting(ReadinessProblem::code).containsExactly(CniError.INTERFACE_MISSING);
    }

    @Test
    void aViewThatHasNotSeenTheAddressYetIsWaitedForNotFailed() {
        TopologySnapshot before = host().snapshot(1);
        TopologySnapshot after = macvlanPod(host(), "pod1", 1, "10.77.0.2").snapshot(2);
        RdmaDevice soft0 = SoftRocePort.compute(SoftPortSpec.parse("soft0=uplink"), before);

        ReadinessReport r = Readiness.evaluate(view(before, soft0), fresh(after, "pod1"), POD,
                List.of(net1("10.77.0.2")), GidType.ROCE_V2);

        assertThat(r.converging()).isTrue();
        assertThat(r.toError().code()).isEqualTo(CniError.TRY_AGAIN_LATER);
    }

    @Test
    void theSameIpAtALowerIndexInAnotherPodMeansThisPodNeverGetsItsRequests() {
        DumpBuilder b = macvlanPod(host(), "pod1", 1, "10.77.0.2");
        TopologySnapshot snap = macvlanPod(b, "pod2", 2, "10.77.0.2").snapshot(1);
        RdmaDevice soft0 = SoftRocePort.compute(SoftPortSpec.parse("soft0=uplink"), snap);

        ReadinessReport r = Readiness.evaluate(view(snap, soft0), fresh(snap, "pod2"), "/run/netns/pod2",
                List.of(net1("10.77.0.2")), GidType.ROCE_V2);

        assertThat(r.problems()).extracting(ReadinessProblem::code).containsExactly(CniError.SAME_IP_ELSEWHERE);
        assertThat(r.problems().get(0).message()).contains("net1@pod1");
    }

    @Test
    void aGidTypeThePortDoesNotHaveIsAPermanentError() {
        TopologySnapshot snap = macvlanPod(host(), "pod1", 1, "10.77.0.2").snapshot(1);
        RdmaDevice soft0 = SoftRocePort.compute(SoftPortSpec.parse("soft0=uplink"), snap);

        ReadinessReport r = Readiness.evaluate(view(snap, soft0), fresh(snap, "pod1"), POD, List.of(net1("10.77.0.2")),
                GidType.ROCE_V1);

        assertThat(r.problems()).extracting(ReadinessProblem::code).containsExactly(CniError.GID_TYPE_MISSING);
        assertThat(r.problems().get(0).fix()).contains("\"gidType\": \"v2\"");
    }

    /** host: ib0 (IPoIB parent, P_Key 0xffff); pod1: ib0.8001, a child with P_Key {@code pkey}. */
    private static TopologySnapshot ipoib(int pkey) {
        DumpBuilder b = new DumpBuilder();
        NetnsId pod = b.pod("pod1", 1);
        b.link(b.host(), 4, "ib0").ipoib(0xffff, "fe80::b859:9f03:a1:b2c0", 0x1087).add();
        b.link(pod, 2, "net1").ipoib(pkey, "fe80::b859:9f03:a1:b2c0", 0x1107).parent(4, 0).add();
        b.addr(pod, 2, "192.168.50.7/24");
        return b.snapshot(1);
    }

    private static RdmaDevice ibDevice(TopologySnapshot snap, NetnsId deviceNetns) {
        GidEntry portGid = new GidEntry(0, Gid.parse("fe80::b859:9f03:a1:b2c0"), GidType.IB, null, OptionalInt.empty());
        RdmaPort port = new RdmaPort(1, RdmaPort.LinkLayer.INFINIBAND, "4: ACTIVE", 0xb8599f0300a1b2c0L, List.of(),
                List.of(portGid), new PkeyTable(List.of(0xffff, 0x8001, 0)), null,
                List.of(new LinkRef(snap.host(), 4)));
        return new RdmaDevice("mlx5_0", 0xb8599f0300a1b2c0L, false, deviceNetns, List.of(port));
    }

    @Test
    void ipoibChildWhosePkeyIsInThePortTableIsReadyWithItsPkeyIndex() {
        TopologySnapshot snap = ipoib(0x8001);

        ReadinessReport r = Readiness.evaluate(view(snap, ibDevice(snap, snap.host())), fresh(snap, "pod1"), POD,
                List.of(net1("192.168.50.7")), GidType.ROCE_V2);

        assertThat(r.problems()).isEmpty();
        assertThat(r.ready()).singleElement().satisfies(a -> {
            assertThat(a.linkLayer()).isEqualTo(Attachment.INFINIBAND);
            assertThat(a.pkey()).isEqualTo(0x8001);
            assertThat(a.pkeyIndex()).isEqualTo(1);
        });
    }

    @Test
    void ipoibChildWithAPkeyMissingFromThePortTableNamesThePartitionToAdd() {
        TopologySnapshot snap = ipoib(0x8002);

        ReadinessReport r = Readiness.evaluate(view(snap, ibDevice(snap, snap.host())), fresh(snap, "pod1"), POD,
                List.of(net1("192.168.50.7")), GidType.ROCE_V2);

        assertThat(r.problems()).singleElement().satisfies(p -> {
            assertThat(p.code()).isEqualTo(CniError.PKEY_NOT_IN_TABLE);
            assertThat(p.message()).contains("0x8002").contains("0x8001");
            assertThat(p.fix()).contains("partition 0x0002");
        });
    }

    @Test
    void exclusiveNetnsModeWithTheDeviceInTheHostRefusesThePod() {
        TopologySnapshot snap = ipoib(0x8001);
        RdmaView v = new RdmaView(1, snap, new RdmaTopology(1, RdmaTopology.NetnsMode.EXCLUSIVE,
                List.of(ibDevice(snap, snap.host()))));

        ReadinessReport r = Readiness.evaluate(v, fresh(snap, "pod1"), POD, List.of(net1("192.168.50.7")),
                GidType.ROCE_V2);

        assertThat(r.problems()).extracting(ReadinessProblem::code).containsExactly(CniError.EXCLUSIVE_NETNS_MODE);
        assertThat(r.problems().get(0).fix()).contains("rdma system set netns shared");
    }

    @Test
    void noSandboxInterfaceInPrevResultIsItsOwnError() {
        TopologySnapshot snap = host().snapshot(1);
        FreshNetns none = new FreshNetns(new NetnsId(0, 1), List.<Link>of(), List.<Address>of());

        ReadinessReport r = Readiness.evaluate(view(snap), none, POD, List.of(), GidType.ROCE_V2);

        assertThat(r.problems()).extracting(ReadinessProblem::code).containsExactly(CniError.NO_SANDBOX_INTERFACE);
    }
}
