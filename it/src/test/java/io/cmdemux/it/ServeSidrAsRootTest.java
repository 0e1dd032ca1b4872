package io.cmdemux.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.gid.Gid;
import io.cmdemux.ingress.wire.CmSidrRep;
import io.cmdemux.ingress.wire.FrameResult;
import io.cmdemux.ingress.wire.L2Header;
import io.cmdemux.ingress.wire.L3Header;
import io.cmdemux.ingress.wire.Mad;
import io.cmdemux.ingress.wire.PortSpace;
import io.cmdemux.ingress.wire.RdmaCmRequests;
import io.cmdemux.ingress.wire.RoceDecoder;
import io.cmdemux.ingress.wire.RoceFrameBuilder;
import io.cmdemux.namespaces.NetnsExecutor;
import io.cmdemux.namespaces.testkit.Host;
import io.cmdemux.netdev.ClassicBpf;
import io.cmdemux.netdev.HwAddr;
import io.cmdemux.netdev.InetAddresses;
import io.cmdemux.netdev.PacketSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * SIDR REQs on a soft port: every refusal is a SIDR REP whose status is what cm_sidr_req_handler
 * and cm_destroy_id send (IB_SIDR_UNSUPPORTED 1 when ib_cm has no listener for the service ID,
 * IB_SIDR_REJECT 2 for any failure after it, a consumer's reject included), never a CM REJ and
 * never a REJ reason in the status. Needs root and nftables.
 */
class ServeSidrAsRootTest {
    private static ServeFixture f;

    @BeforeAll
    static void start() throws Exception {
        f = new ServeFixture("sd");
        f.startServe();
    }

    @AfterAll
    static void stop() {
        if (f != null) {
            f.close();
        }
    }

    private static byte[] sidr(int requestId, PortSpace ps, String dst, int port) throws Exception {
        HwAddr src = HwAddr.parse(ServeFixture.JSON.readTree(Host.sh("ip", "-n", f.cli, "-j", "link", "show", "dev",
                f.clientIf())).get(0).get("address").asText());
        HwAddr dmac = HwAddr.parse("02:88:00:00:00:0" + dst.charAt(dst.length() - 1));
        var s = InetAddresses.parse("10.88.0.99");
        var d = InetAddresses.parse(dst);
        return RoceFrameBuilder.cmFrame(new L2Header(dmac, src, null), L3Header.of(Gid.ofIp(s), Gid.ofIp(d)),
                0xc001, 0xffff, 0, Mad.of(RdmaCmRequests.sidr(requestId, ps, s, 40001, d, port), requestId));
    }

    /** Sends the frames from the client and returns the SIDR REPs that come back within a second, by request ID. */
    private static Map<Integer, CmSidrRep> exchange(List<byte[]> frames) throws Exception {
        int ifindex = ServeFixture.JSON.readTree(Host.sh("ip", "-n", f.cli, "-j", "link", "show", "dev", f.clientIf()))
                .get(0).get("ifindex").asInt();
        Map<Integer, CmSidrRep> got = new TreeMap<>();
        try (NetnsExecutor exec = new NetnsExecutor(1)) {
            exec.call("/run/netns/" + f.cli, () -> {
                try (PacketSocket s = PacketSocket.open(ifindex,
                        ClassicBpf.udpDstPort(RoceDecoder.ROCEV2_UDP_PORT), 100)) {
                    for (byte[] fr : frames) {
                        s.send(fr);
                    }
                    PacketSocket.Batch batch = new PacketSocket.Batch(16);
                    long deadline = System.currentTimeMillis() + 1500;
                    while (System.currentTimeMillis() < deadline) {
                        int n = s.receive(batch);
                        for (int i = 0; i < n; i++) {
                            if (RoceDecoder.decodeEthernet(batch.frame(i)) instanceof FrameResult.Decoded d
                                    && d.frame().mad().message() instanceof CmSidrRep rep) {
                                got.put(rep.requestId(), rep);
                            }
                        }
                    }
                }
                return null;
            });
        }
        return got;
    }

    @Test
    void everyRefusedSidrReqGetsASidrRepWithTheKernelsStatus() throws Exception {
        Proc rejecting = f.listen(1, "0.0.0.0", 7174, "--ps", "udp", "--reject", "28");
        f.listen(2, "0.0.0.0", 7174, "--ps", "tcp");
        List<byte[]> frames = new ArrayList<>();
        frames.add(sidr(0x51d0001, PortSpace.UDP, "10.88.0.11", 7174)); // delivered, then refused by the consumer
        frames.add(sidr(0x51d0002, PortSpace.UDP, "10.88.0.11", 7175)); // no listener for the service ID anywhere
        frames.add(sidr(0x51d0003, PortSpace.UDP, "10.88.0.12", 7174)); // pod2 listens on 7174 in PS_TCP only
        frames.add(sidr(0x51d0004, PortSpace.TCP, "10.88.0.12", 7174)); // PS_TCP: pod2's RC listener is no UD listener
        Map<Integer, CmSidrRep> reps = exchange(frames);
        assertThat(reps).containsOnlyKeys(0x51d0001, 0x51d0002, 0x51d0003, 0x51d0004);
        assertThat(reps.get(0x51d0001).status()).as("rdma_reject on a UD id: cma_send_sidr_rep(IB_SIDR_REJECT)")
                .isEqualTo(2);
        assertThat(reps.get(0x51d0002).status()).as("no ib_cm listener: IB_SIDR_UNSUPPORTED").isEqualTo(1);
        assertThat(reps.get(0x51d0003).status()).as("the UDP service ID has pod1's listener, pod2 has no UDP bind list")
                .isEqualTo(2);
        assertThat(reps.get(0x51d0004).status()).as("cma_ib_check_req_qp_type: a SIDR REQ needs a UD listener")
                .isEqualTo(2);
        assertThat(ServeFixture.reqs(rejecting)).extracting(j -> j.get("localCommId").asLong())
                .containsExactly(0x51d0001L);
        assertThat(f.metric("frames_sent_total{kind=\"sidr-rep\"}")).isGreaterThanOrEqualTo(4);
    }
}
