package io.cmdemux.dataplane.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.dataplane.source.SoftPortTap;
import io.cmdemux.ingress.resolve.ListenerTable;
import io.cmdemux.netdev.PacketSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A tap whose batch takes long to decide hands its requests over in parts (SoftPortTap.HANDOVER_NANOS), as a
 * daemon that has just started does with its first frames: real REQ frames on a veth, queued before the tap
 * reads them so that one recvmmsg takes them all, and a consumer that takes 3 ms a delivery. Needs root.
 */
class TapHandoverAsRootTest {
    private String a;
    private String b;

    @BeforeEach
    void veth() throws Exception {
        String tag = Integer.toString(ThreadLocalRandom.current().nextInt(36 * 36 * 36), 36);
        a = "cxth" + tag + "a";
        b = "cxth" + tag + "b";
        for (String[] argv : new String[][] {{"ip", "link", "add", a, "type", "veth", "peer", "name", b},
                {"ip", "link", "set", a, "up"}, {"ip", "link", "set", b, "up"}}) {
            Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            assertThat(p.waitFor()).as(String.join(" ", argv) + ": " + out
                    + " (this test needs root: it creates a veth pair)").isZero();
        }
    }

    @AfterEach
    void cleanUp() throws Exception {
        if (a != null) {
            new ProcessBuilder("ip", "link", "del", a).start().waitFor();
        }
    }

    /** Takes each delivery slowly, and writes down each delivery and each hand-over in order. */
    static final class SlowConsumers extends DispatchLab.TableConsumers {
        final List<String> seen = new ArrayList<>();

        SlowConsumers(ListenerTable listeners) {
            super(listeners);
        }

        @Override
        public synchronized Handover deliver(Delivery delivery) {
            try {
                Thread.sleep(3);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            seen.add("deliver");
            return Handover.TAKEN;
        }

        @Override
        public synchronized void releaseDeliveries() {
            seen.add("release");
        }

        synchronized List<String> seen() {
            return List.copyOf(seen);
        }
    }

    @Test
    void aBatchSlowerThanTheHandoverTimeIsHandedOverInParts() throws Exception {
        SlowConsumers[] consumers = new SlowConsumers[1];
        DispatchLab lab = new DispatchLab(l -> consumers[0] = new SlowConsumers(l));
        int ifA = Integer.parseInt(Files.readString(Path.of("/sys/class/net/" + a + "/ifindex")).trim());
        int ifB = Integer.parseInt(Files.readString(Path.of("/sys/class/net/" + b + "/ifindex")).trim());
        int frames = 10;
        PacketSocket socket = SoftPortTap.openSocket(ifA);
        try (PacketSocket wire = PacketSocket.open(ifB, null, 100)) {
            for (int comm = 1; comm <= frames; comm++) {
                wire.send(DispatchLab.req(comm, DispatchLab.LISTENER_PORT));
            }
        }
        Thread.sleep(100); // all of them queued at the tap's socket before it first reads
        try (SoftPortTap tap = new SoftPortTap("rxe0", a, socket, lab.pipeline, lab.metrics, () -> { })) {
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (consumers[0].seen().stream().filter("deliver"::equals).count() < frames) {
                assertThat(System.nanoTime()).as("all %d deliveries within 10 s", frames).isLessThan(deadline);
                Thread.sleep(10);
            }
            Thread.sleep(50);
        }
        List<String> seen = consumers[0].seen();
        assertThat(seen.stream().filter("deliver"::equals).count()).isEqualTo(frames);
        // Each delivery took longer than the hand-over time: every one but the last is handed over before the next
        // is decided, instead of all of them at the batch's end.
        assertThat(seen.indexOf("release")).as("the first hand-over, in %s", seen).isEqualTo(1);
        assertThat(seen.stream().filter("release"::equals).count()).isGreaterThanOrEqualTo(frames);
    }
}
