package io.cmdemux.pathrecord;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.gid.Gid;
import io.cmdemux.netdev.NlMessage;
import io.cmdemux.pathrecord.ls.IpResolver;
import io.cmdemux.pathrecord.ls.LsCodec;
import io.cmdemux.pathrecord.ls.LsMessage;
import io.cmdemux.pathrecord.policy.Policy;
import io.cmdemux.pathrecord.source.PathSource;
import io.cmdemux.pathrecord.source.StaticPathSource;
import io.cmdemux.pathrecord.testkit.IbHost;
import io.cmdemux.pathrecord.testkit.InMemoryTransport;
import io.cmdemux.pathrecord.testkit.LsChecker;
import io.cmdemux.pathrecord.testkit.LsChecker.Input;
import io.cmdemux.pathrecord.testkit.LsGolden;
import io.cmdemux.pathrecord.testkit.LsGolden.Golden;
import io.cmdemux.netdev.InetAddresses;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The responder driven with the kernel's own bytes (ls_golden.c) through an in-memory transport,
 * its replies judged by ls_check.c (what sa_query.c and cma.c would do with them). Records come from
 * the hand-written dump_pr fixture src/test/resources/static/fabric.dump, whose lines are the oracle.
 */
class ResponderTest {
    static final Path FABRIC = Path.of(System.getProperty("basedir", "."), "src/test/resources/static/fabric.dump");
    final InMemoryTransport kernel = new InMemoryTransport();
    Responder responder;

    static StaticPathSource fabric() {
        try {
            return StaticPathSource.load(FABRIC, 18);
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }

    Responder start(PathSource source, Policy policy, int timeoutMs) throws Exception {
        IbHost h = new IbHost();
        PathResolver r =
                new PathResolver(() -> h.state(1), policy, source, new PathCache(1000, Duration.ofMinutes(5), 0));
        responder = new Responder(kernel, r,
                IpResolver.of(Map.of(InetAddresses.parse("192.168.7.20"), Gid.parse("fe80::2:c903:0:77"))), timeoutMs);
        responder.start();
        // SET_TIMEOUT first, before any answer.
        byte[] setTimeout = kernel.nextSent(2000);
        assertThat(setTimeout).as("SET_TIMEOUT at start").isNotNull();
        assertThat(LsChecker.check(new Input("timeout", 0, 1, setTimeout)))
                .containsEntry("rc", "0")
                .containsEntry("timeout", Integer.toString(timeoutMs));
        return responder;
    }

    @AfterEach
    void stop() {
        if (responder != null) {
            responder.close();
        }
    }

    @Test
    void everyKernelRequestGetsOneReplyThatTheKernelKeepsWithTheFixturesValues() throws Exception {
        start(fabric(), Policy.empty(), 2000);
        List<Golden> requests = LsGolden.ofClass("resolve");
        List<Input> replies = new ArrayList<>();
        for (Golden g : requests) {
            kernel.fromKernel(g.bytes());
            byte[] reply = kernel.nextSent(2000);
            assertThat(reply).as("a reply to " + g.name()).isNotNull();
            replies.add(new Input("resolve", Integer.parseInt(g.values().get("path_use")),
                    (int) Long.parseLong(g.values().get("seq")), reply));
        }
        List<Map<String, String>> judged = LsChecker.check(replies);
        for (int i = 0; i < requests.size(); i++) {
            Golden g = requests.get(i);
            Map<String, String> v = judged.get(i);
            assertThat(v).as(g.name()).containsEntry("matched", "1").containsEntry("rc", "0");
            String dgid = g.values().get("dgid");
            String sgid = g.values().get("sgid");
            if (sgid.equals("-")) {
                // A static path needs its source section: no SGID, no record, F_ERR so that the kernel asks the SA.
                assertThat(v).as(g.name()).containsEntry("good", "0").containsEntry("fallback", "1");
                continue;
            }
            assertThat(v).as(g.name()).containsEntry("good", "1").containsEntry("kept", "1").containsEntry("cma", "ok");
            String slot = g.values().get("use").equals("unidirectional") ? "outbound" : "path_rec";
            assertThat(v)
                    .as(g.name())
                    .containsEntry("r0.slot", slot)
                    .containsEntry("r0.slid", "2")
                    .containsEntry("r0.dgid", dgid)
                    .containsEntry("r0.sgid", sgid);
            // fabric.dump: LID 4 "1 : 4 : 7" for GUID ...77, LID 6 "3 : 3 : 7" for GUID ...09.
            if (dgid.endsWith(":77")) {
                assertThat(v)
                        .as(g.name())
                        .containsEntry("r0.dlid", "4")
                        .containsEntry("r0.sl", "1")
                        .containsEntry("r0.mtu", "4")
                        .containsEntry("r0.rate", "7");
            } else {
                assertThat(v)
                        .as(g.name())
                        .containsEntry("r0.dlid", "6")
                        .containsEntry("r0.sl", "3")
                        .containsEntry("r0.mtu", "3")
                        .containsEntry("r0.rate", "7");
            }
            String pkey = g.values().get("pkey");
            assertThat(v.get("r0.pkey")).as(g.name()).isEqualTo(pkey.equals("-") ? "0xffff" : pkey);
            assertThat(v)
                    .as(g.name())
                    .containsEntry("r0.reversible", g.values().get("use").equals("unidirectional") ? "0" : "1");
        }
        assertThat(responder.stats().answered()).isEqualTo(requests.size());
    }

    @Test
    void datagramsFromOtherSendersThanTheKernelAreIgnored() throws Exception {
        start(fabric(), Policy.empty(), 2000);
        kernel.from(31337, LsGolden.get("cma-ipv4-all").bytes()); // e.g. ibacm's reply multicast to the group
        assertThat(kernel.nextSent(300)).isNull();
        assertThat(responder.stats().ignoredNotKernel()).isEqualTo(1);
        assertThat(responder.stats().received()).isZero();
    }

    @Test
    void badRequestsAreAnsweredWithErrForTheirSeqSoTheKernelFallsBack() throws Exception {
        start(fabric(), Policy.empty(), 2000);
        for (Golden g : LsGolden.ofClass("bad")) {
            if (g.name().equals("unknown-op")) {
                continue; // judged below: it is not a RESOLVE
            }
            kernel.fromKernel(g.bytes());
            byte[] reply = kernel.nextSent(2000);
            assertThat(reply).as(g.name()).isNotNull();
            Map<String, String> v = LsChecker.check(
                    new Input("resolve", 0, Integer.parseInt(g.values().get("seq")), reply));
            assertThat(v)
                    .as(g.name())
                    .containsEntry("matched", "1")
                    .containsEntry("good", "0")
                    .containsEntry("why", "err_flag")
                    .containsEntry("fallback", "1");
        }
        kernel.fromKernel(LsGolden.get("unknown-op").bytes());
        byte[] reply = kernel.nextSent(2000);
        assertThat(NlMessage.of(reply).type()).isEqualTo(NlMessage.of(LsGolden.get("unknown-op").bytes()).type());
        assertThat(NlMessage.of(reply).flags()).isEqualTo(0x100);
        assertThat(responder.stats().malformed()).isEqualTo(LsGolden.ofClass("bad").size());
    }

    @Test
    void aTruncatedDatagramIsDroppedWithoutAnAnswer() throws Exception {
        start(fabric(), Policy.empty(), 2000);
        byte[] g = LsGolden.get("cma-ipv4-all").bytes();
        kernel.fromKernel(java.util.Arrays.copyOf(g, 12)); // not even an nlmsghdr
        byte[] cut = java.util.Arrays.copyOf(g, 40);      // nlmsg_len says more than arrived
        kernel.fromKernel(cut);
        assertThat(kernel.nextSent(300)).isNull();
        assertThat(responder.stats().malformed()).isEqualTo(2);
    }

    /** A source whose answers the test hands out. */
    static final class HeldSource implements PathSource {
        final List<CompletableFuture<PathRecord>> asked = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public String name() {
            return "held";
        }

        @Override
        public CompletableFuture<PathRecord> resolve(PathQuery q) {
            CompletableFuture<PathRecord> f = new CompletableFuture<>();
            asked.add(f);
            return f;
        }
    }

    static byte[] request(int seq, String dgid) {
        return LsCodec.encodeResolveRequest(new LsMessage.ResolveRequest(seq, 0, IbHost.DEV, 1, 0, OptionalLong.empty(),
                Gid.parse(dgid), IbHost.PORT_GID, OptionalInt.empty(), OptionalInt.of(0xffff), OptionalInt.empty(), 0));
    }

    @Test
    void aSeqReusedWhileInFlightGetsErrTwiceSoNoQueryCanTakeTheOthersRecords() throws Exception {
        HeldSource held = new HeldSource();
        start(held, Policy.empty(), 5000);
        kernel.fromKernel(request(55, "fe80::2:c903:0:77"));
        while (held.asked.isEmpty()) {
            Thread.sleep(5);
        }
        kernel.fromKernel(request(55, "fe80::2:c903:0:9"));
        byte[] first = kernel.nextSent(2000);
        assertThat(LsChecker.check(new Input("resolve", 0, 55, first)))
                .containsEntry("good", "0")
                .containsEntry("fallback", "1");
        held.asked
                .get(0)
                .complete(ResponderTest.fabric()
                        .lookup(PathQuery.of(IbHost.DEV, 1, IbHost.PORT_GID, Gid.parse("fe80::2:c903:0:77"))));
        byte[] second = kernel.nextSent(2000);
        assertThat(LsChecker.check(new Input("resolve", 0, 55, second)))
                .containsEntry("good", "0")
                .containsEntry("fallback", "1");
        assertThat(kernel.nextSent(200)).isNull();
        assertThat(responder.stats().reusedSeq()).isEqualTo(1);
    }

    @Test
    void anAnswerNotReadyInTimeGoesOutAsErrBeforeTheKernelsTimeout() throws Exception {
        HeldSource held = new HeldSource();
        start(held, Policy.empty(), 200);
        long t0 = System.nanoTime();
        kernel.fromKernel(request(9, "fe80::2:c903:0:77"));
        byte[] reply = kernel.nextSent(2000);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertThat(LsChecker.check(new Input("resolve", 0, 9, reply)))
                .containsEntry("good", "0")
                .containsEntry("fallback", "1");
        // 200 ms timeout, answered by 180 ms (margin max(20 ms, 10%)).
        assertThat(ms).isBetween(150L, 199L);
        held.asked
                .get(0)
                .complete(ResponderTest.fabric()
                        .lookup(PathQuery.of(IbHost.DEV, 1, IbHost.PORT_GID, Gid.parse("fe80::2:c903:0:77"))));
        assertThat(kernel.nextSent(200)).as("exactly one answer per query").isNull();
        assertThat(responder.stats().deadlineErrs()).isEqualTo(1);
    }

    @Test
    void ipResolveIsAnsweredFromTheConfiguredMapAndErrOtherwise() throws Exception {
        start(fabric(), Policy.empty(), 2000);
        kernel.fromKernel(LsGolden.get("ip-resolve-v4").bytes());
        kernel.fromKernel(LsGolden.get("ip-resolve-v6").bytes());
        Map<String, String> v4 = LsChecker.check(new Input("ip", 0, 41, kernel.nextSent(2000)));
        Map<String, String> v6 = LsChecker.check(new Input("ip", 0, 42, kernel.nextSent(2000)));
        assertThat(v4).containsEntry("good", "1").containsEntry("dgid", "fe80::2:c903:0:77");
        assertThat(v6).containsEntry("matched", "1").containsEntry("good", "0");
    }

    @Test
    void anOffResponderSaysWhyAndNeverTouchesATransport() {
        PathResolver r = new PathResolver(
                () -> new IbHost().state(1), Policy.empty(), fabric(), new PathCache(10, Duration.ofMinutes(1), 0));
        Responder off = Responder.off("this kernel has no NETLINK_RDMA", r);
        assertThat(off.state()).isEqualTo(Responder.State.OFF);
        assertThat(off.stats().stateDetail()).contains("NETLINK_RDMA");
        off.close();
    }
}
