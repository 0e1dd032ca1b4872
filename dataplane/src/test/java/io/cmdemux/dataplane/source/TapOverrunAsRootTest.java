package io.cmdemux.dataplane.source;

import io.cmdemux.dataplane.metrics.Metrics;
import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.gid.Gid;
import io.cmdemux.ingress.wire.L2Header;
import io.cmdemux.ingress.wire.L3Header;
import io.cmdemux.ingress.wire.Mad;
import io.cmdemux.ingress.wire.PortSpace;
import io.cmdemux.ingress.wire.RdmaCmRequests;
import io.cmdemux.ingress.wire.RoceDecoder;
import io.cmdemux.ingress.wire.RoceFrameBuilder;
import io.cmdemux.netdev.ClassicBpf;
import io.cmdemux.netdev.HwAddr;
import io.cmdemux.netdev.InetAddresses;
import io.cmdemux.netdev.PacketSocket;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * REQs the kernel drops at a full tap socket reach drops_total{reason="tap-overrun"}, read from
 * PACKET_STATISTICS. Needs root (creates a veth pair).
 */
class TapOverrunAsRootTest {
    private String a;
    private int ifA;
    private int ifB;

    @BeforeEach
    void veth() throws Exception {
        String uid = new String(new ProcessBuilder("id", "-u").start().getInputStream().readAllBytes()).trim();
        if (!uid.equals("0")) {
            throw new AssertionError("this test needs root (it creates a veth pair)");
        }
        String tag = Integer.toString(ThreadLocalRandom.current().nextInt(36 * 36 * 36), 36);
        a = "cxto" + tag + "a";
        String b = "cxto" + tag + "b";
        for (String[] argv : new String[][] {{"ip", "link", "add", a, "type", "veth", "peer", "name", b},
                {"ip", "link", "set", a, "up"}, {"ip", "link", "set", b, "up"}}) {
            Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            assertThat(p.waitFor()).as(String.join(" ", argv) + ": " + out).isZero();
        }
        ifA = Integer.parseInt(Files.readString(Path.of("/sys/class/net/" + a + "/ifindex")).trim());
        ifB = Integer.parseInt(Files.readString(Path.of("/sys/class/net/" + b + "/ifindex")).trim());
    }

    @AfterEach
    void cleanUp() throws Exception {
        if (a != null) {
            new ProcessBuilder("ip", "link", "del", a).start().waitFor();
        }
    }

    @Test
    void requestsDroppedAtAFullTapSocketAreCountedAsTapOverrun() throws Exception {
        InetAddress src = InetAddresses.parse("10.99.0.99");
        InetAddress dst = InetAddresses.parse("10.99.0.11");
        L2Header l2 = new L2Header(HwAddr.parse("02:99:00:00:00:01"), HwAddr.parse("02:99:00:00:00:99"), null);
        Metrics metrics = new Metrics();
        // The smallest receive buffer the kernel allows holds a handful of REQs; nobody reads it.
        try (PacketSocket tap = PacketSocket.open(ifA, ClassicBpf.udpDstPort(RoceDecoder.ROCEV2_UDP_PORT), 100, 1);
                PacketSocket wire = PacketSocket.open(ifB, null, 100)) {
            int sent = 100;
            for (int comm = 1; comm <= sent; comm++) {
                var req = RdmaCmRequests.req(comm, 0x0200000000000001L, 0x10, 0, PortSpace.TCP, src, 40000,
                        dst, 7471, null);
                wire.send(RoceFrameBuilder.cmFrame(l2, L3Header.of(Gid.ofIp(src), Gid.ofIp(dst)), 0xc000, 0xffff, 0,
                        Mad.of(req, comm)));
            }
            Thread.sleep(300);
            SoftPortTap.countOverruns(tap, metrics, "rxe0");
            double drops = metrics.count("drops", "reason", SoftPortTap.TAP_OVERRUN);
            assertThat(drops).isGreaterThan(sent / 2.0).isLessThan(sent);
            SoftPortTap.countOverruns(tap, metrics, "rxe0"); // the kernel's counters restart at each read; ours add up
            assertThat(metrics.count("drops", "reason", SoftPortTap.TAP_OVERRUN)).isEqualTo(drops);
            assertThat(metrics.scrape()).contains("drops_total{reason=\"tap-overrun\"} " + drops);
        }
    }
}
