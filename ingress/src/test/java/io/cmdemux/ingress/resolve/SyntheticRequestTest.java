package io.cmdemux.ingress.resolve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cmdemux.gid.Gid;
import io.cmdemux.gid.GidEntry;
import io.cmdemux.gid.GidType;
import io.cmdemux.gid.PkeyTable;
import io.cmdemux.gid.RdmaDevice;
import io.cmdemux.gid.RdmaPort;
import io.cmdemux.gid.RdmaTopology;
import io.cmdemux.ingress.wire.CmMessage;
import io.cmdemux.ingress.wire.CmSamples;
import io.cmdemux.ingress.wire.FrameResult;
import io.cmdemux.ingress.wire.Mad;
import io.cmdemux.ingress.wire.PortSpace;
import io.cmdemux.ingress.wire.RdmaCmRequests;
import io.cmdemux.ingress.wire.RoceDecoder;
import io.cmdemux.ingress.wire.RoceFrame;
import io.cmdemux.ingress.wire.RoceFrameBuilder;
import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.netdev.InetAddresses;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * A request described by its addresses must be the request librdmacm sends: the metadata SyntheticRequest
 * builds is held against what PacketMetas reads from the frame of rdma_connect's REQ or SIDR REQ
 * (RdmaCmRequests, the requests `cmdemux connect` sends), field by field.
 */
class SyntheticRequestTest {
    private static final LinkRef VA = new LinkRef(new NetnsId(1, 1), 2);
    private static final RdmaTopology ROCE = Fixtures.roce(VA, List.of(Fixtures.gid(0, "fe80::1", VA)));

    @Test
    void aTcpRequestIsTheRcReqRdmaConnectSends() {
        assertSameAsTheWire("192.0.2.11", 7471, "192.0.2.2", 40001, PortSpace.TCP);
        assertSameAsTheWire("2001:db8::11", 7471, "2001:db8::2", 40002, PortSpace.TCP);
        assertSameAsTheWire("192.0.2.11", 7471, "192.0.2.2", 40003, PortSpace.IB);
    }

    @Test
    void aUdpOrIpoibRequestIsASidrReq() {
        assertSameAsTheWire("192.0.2.11", 7174, "192.0.2.2", 40004, PortSpace.UDP);
        assertSameAsTheWire("2001:db8::11", 7174, "2001:db8::2", 40005, PortSpace.IPOIB);
    }

    private static void assertSameAsTheWire(String dst, int dstPort, String src, int srcPort, PortSpace ps) {
        InetAddress d = InetAddresses.parse(dst);
        InetAddress s = InetAddresses.parse(src);
        CmMessage m = QpType.defaultFor(ps) == QpType.UD ? RdmaCmRequests.sidr(0x51d0001, ps, s, srcPort, d, dstPort)
                : RdmaCmRequests.req(0x1234, 0x0200aafffe000002L, 0x11, 0x22, ps, s, srcPort, d, dstPort, null);
        byte[] frame = RoceFrameBuilder.cmFrame(CmSamples.l2(null), CmSamples.l3(s, d), 0xc000, 0xffff, 1,
                Mad.of(m, 7));
        RoceFrame decoded = ((FrameResult.Decoded) RoceDecoder.decodeEthernet(frame)).frame();
        PacketMeta wire = PacketMetas.of(Fixtures.DEV, 1, decoded).orElseThrow();
        PacketMeta ours = SyntheticRequest.to(new InetSocketAddress(d, dstPort), new InetSocketAddress(s, srcPort))
                .portSpace(ps).meta(ROCE);
        // Only what the requester chose for this one connection differs: its comm or request ID, and the MAC
        // it sent to.
        assertThat(ours).usingRecursiveComparison().ignoringFields("localCommId", "dmac").isEqualTo(wire);
    }

    @Test
    void anIbPortNamesTheGidOfItsGuid() {
        RdmaPort ib = new RdmaPort(1, RdmaPort.LinkLayer.INFINIBAND, "ACTIVE", 0x0002c90300000001L, List.of(),
                List.of(new GidEntry(0, Gid.parse("fe80::2:c903:0:1"), GidType.IB, null, OptionalInt.empty())),
                new PkeyTable(List.of(0xffff, 0x8001)), null, List.of());
        RdmaTopology rdma = new RdmaTopology(1, RdmaTopology.NetnsMode.SHARED,
                List.of(new RdmaDevice("mlx5_0", 0x0002c90300000001L, false, null, List.of(ib))));
        PacketMeta m = SyntheticRequest.to(sock("10.0.0.11", 7471), sock("10.0.0.2", 40000)).guid(0x0002c90300000001L)
                .pkey(0x8001).meta(rdma);
        assertThat(m.networkType()).isEqualTo(NetworkType.IB);
        assertThat(m.ourGid()).isEqualTo(Gid.parse("fe80::2:c903:0:1"));
        assertThat(m.key()).isEqualTo(new IngressKey("mlx5_0", 1, 0x0002c90300000001L, 0x8001));
        assertThat(m.pkey()).isEqualTo(0x8001);
        assertThat(m.dstIp()).isEqualTo(InetAddresses.parse("10.0.0.11"));
    }

    @Test
    void anAfIbRequestHasNoIpHeader() {
        PacketMeta m = SyntheticRequest.to(sock("192.0.2.11", 7471), sock("192.0.2.2", 1)).afIb(true).meta(ROCE);
        assertThat(m.ipVersion()).isZero();
        assertThat(m.dstIp()).isNull();
        assertThat(m.srcIp()).isNull();
    }

    @Test
    void aQuestionThatCannotBeAskedIsAClearError() {
        assertThatThrownBy(() -> SyntheticRequest.to(sock("192.0.2.11", 1), sock("2001:db8::2", 1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("same IP family");
        assertThatThrownBy(() -> SyntheticRequest.to(sock("192.0.2.11", 1), sock("192.0.2.2", 1))
                .device("mlx5_9").meta(ROCE))
                .hasMessage("no RDMA device mlx5_9 (there are: rxe0)");
        assertThatThrownBy(() -> SyntheticRequest.to(sock("192.0.2.11", 1), sock("192.0.2.2", 1)).port(2).meta(ROCE))
                .hasMessage("rxe0 has no port 2");
        assertThatThrownBy(() -> SyntheticRequest.to(sock("192.0.2.11", 1), sock("192.0.2.2", 1))
                .meta(RdmaTopology.empty()))
                .hasMessage("no RDMA device on this host");
        RdmaTopology two = new RdmaTopology(1, RdmaTopology.NetnsMode.SHARED,
                List.of(ROCE.devices().get(0), new RdmaDevice("rxe1", 2, true, null, ROCE.devices().get(0).ports())));
        assertThatThrownBy(() -> SyntheticRequest.to(sock("192.0.2.11", 1), sock("192.0.2.2", 1)).meta(two))
                .hasMessage("several RDMA devices; name one (rxe0, rxe1)");
    }

    private static InetSocketAddress sock(String ip, int port) {
        return new InetSocketAddress(InetAddresses.parse(ip), port);
    }
}
