package io.cmdemux.pathrecord.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cmdemux.gid.Gid;
import io.cmdemux.pathrecord.PathCache;
import io.cmdemux.pathrecord.PathResolver;
import io.cmdemux.pathrecord.Responder;
import io.cmdemux.pathrecord.ls.IpResolver;
import io.cmdemux.pathrecord.ls.LsCodec;
import io.cmdemux.pathrecord.ls.LsMessage;
import io.cmdemux.pathrecord.ls.PathUse;
import io.cmdemux.pathrecord.source.StaticPathSource;
import io.cmdemux.pathrecord.testkit.IbHost;
import io.cmdemux.pathrecord.testkit.InMemoryTransport;
import io.cmdemux.pathrecord.testkit.LsChecker;
import io.cmdemux.pathrecord.testkit.LsChecker.Input;
import io.cmdemux.pathrecord.testkit.Records;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Per-namespace policy, end to end: a RESOLVE in the kernel's layout, the namespace inferred from
 * the query's (port, SGID, P_Key) by the resolver's IPoIB rule, the rule's action, the reply judged
 * by ls_check. Host: IbHost (ib0.8001 in podA, ib0.8002 in podB, ib0.8003 in podC); paths: the
 * dump_pr fixture. Expected values are the policy's constants and the fixture's lines.
 */
class PolicyThroughTheResponderTest {
    static final String POLICY = """
            {"rules": [
              {"name": "podA-gold",   "match": {"netns": ["podA"]}, "action": {"sl": 6}},
              {"name": "podB-silver", "match": {"netns": ["podB"]}, "action": {"sl": {"set": 4}, "mtu": {"max": 3}}},
              {"name": "podC-denied", "match": {"netns": "podC"}, "action": {"deny": true}},
              {"name": "host-apm",    "match": {"netdev": ["ib0"],
                                                "serviceId": ["0x0000000001060000", "0x000000000106ffff"]},
                                      "action": {"alternate": true, "directional": true}},
              {"name": "host-fail",   "match": {"netns": "host", "tclass": [128, 255]}, "action": {"fail": true}}
            ]}""";
    static final Gid PEER = Gid.parse("fe80::2:c903:0:77");
    final InMemoryTransport kernel = new InMemoryTransport();
    Responder responder;

    void start(String policyJson) throws Exception {
        IbHost h = new IbHost();
        StaticPathSource src = StaticPathSource.load(
                Path.of(System.getProperty("basedir", "."), "src/test/resources/static/fabric.dump"), 18);
        PathResolver r = new PathResolver(
                () -> h.state(1), PolicyFile.parse(policyJson, 1), src, new PathCache(1000, Duration.ofMinutes(5), 0));
        responder = new Responder(kernel, r, IpResolver.none(), 2000);
        responder.start();
        kernel.nextSent(2000); // SET_TIMEOUT
    }

    @AfterEach
    void stop() {
        if (responder != null) {
            responder.close();
        }
    }

    Map<String, String> ask(int seq, PathUse use, int pkey, OptionalLong serviceId, OptionalInt tclass) {
        kernel.fromKernel(LsCodec.encodeResolveRequest(new LsMessage.ResolveRequest(seq, 0, IbHost.DEV, 1, use.wire(),
                serviceId, PEER, IbHost.PORT_GID, tclass, OptionalInt.of(pkey), OptionalInt.empty(), 0)));
        byte[] reply = kernel.nextSent(2000);
        assertThat(reply).as("reply to seq " + seq).isNotNull();
        return LsChecker.check(new Input("resolve", use.wire(), seq, reply));
    }

    @Test
    void twoNamespacesGetDifferentSlsForTheSameDgid() throws Exception {
        start(POLICY);
        Map<String, String> a = ask(1, PathUse.ALL, 0x8001, OptionalLong.empty(), OptionalInt.empty());
        Map<String, String> b = ask(2, PathUse.ALL, 0x8002, OptionalLong.empty(), OptionalInt.empty());
        assertThat(a)
                .containsEntry("good", "1")
                .containsEntry("kept", "1")
                .containsEntry("r0.dgid", PEER.toString())
                .containsEntry("r0.sl", "6")
                .containsEntry("r0.mtu", "4");
        assertThat(b)
                .containsEntry("good", "1")
                .containsEntry("kept", "1")
                .containsEntry("r0.dgid", PEER.toString())
                .containsEntry("r0.sl", "4")
                .containsEntry("r0.mtu", "3");
        // The limited-member P_Key is the same partition, so the
        // same pod: 0x0001 is podA's ib0.8001 (ib_find_cached_pkey).
        assertThat(ask(3, PathUse.GMP, 0x0001, OptionalLong.empty(), OptionalInt.empty()))
                .containsEntry("r0.sl", "6");
    }

    @Test
    void aDenyRuleAnswersErrSoTheKernelAsksTheSaItself() throws Exception {
        start(POLICY);
        assertThat(ask(5, PathUse.ALL, 0x8003, OptionalLong.empty(), OptionalInt.empty()))
                .containsEntry("good", "0").containsEntry("why", "err_flag").containsEntry("fallback", "1");
    }

    @Test
    void aFailRuleAnswersWithoutRecordsSoTheQueryFailsWithoutFallback() throws Exception {
        start(POLICY);
        assertThat(ask(6, PathUse.ALL, 0xffff, OptionalLong.empty(), OptionalInt.of(0xa0)))
                .containsEntry("good", "1")
                .containsEntry("fallback", "0")
                .containsEntry("kept", "0")
                .containsEntry("status", "-5");
    }

    @Test
    void anAlternateRuleStacksSixCorrectlyFlaggedRecordsForPathUseAll() throws Exception {
        start(POLICY);
        Map<String, String> v = ask(7, PathUse.ALL, 0xffff, OptionalLong.of(0x0000000001061d2fL), OptionalInt.empty());
        // Three primaries kept and filed by cma_query_handler; the fixture's lines give each one's DLID, SLID and SL:
        // forward 2->4 "1", return 4->2 "1" (peer section), alternates 2->5 "2" and 4->3 "2".
        assertThat(v)
                .containsEntry("good", "1")
                .containsEntry("attrs", "6")
                .containsEntry("kept", "3")
                .containsEntry("cma", "ok");
        assertThat(v)
                .containsEntry("r0.slot", "path_rec")
                .containsEntry("r0.dlid", "4")
                .containsEntry("r0.slid", "2")
                .containsEntry("r0.reversible", "1");
        assertThat(v)
                .containsEntry("r1.slot", "outbound")
                .containsEntry("r1.dlid", "4")
                .containsEntry("r1.slid", "2")
                .containsEntry("r1.reversible", "0");
        assertThat(v)
                .containsEntry("r2.slot", "inbound")
                .containsEntry("r2.dlid", "2")
                .containsEntry("r2.slid", "4")
                .containsEntry("r2.sl", "1");
        // The alternates follow, flagged ALTERNATE (0x4) with
        // GMP|BIDIRECTIONAL (0x1|0x28), OUTBOUND (0x8) or INBOUND (0x10).
        assertThat(v)
                .containsEntry("a3.flags", "0x2d")
                .containsEntry("a3.dlid", "5")
                .containsEntry("a3.sl", "2");
        assertThat(v).containsEntry("a4.flags", "0xc").containsEntry("a4.dlid", "5");
        assertThat(v)
                .containsEntry("a5.flags", "0x14")
                .containsEntry("a5.dlid", "3")
                .containsEntry("a5.slid", "4")
                .containsEntry("a5.sl", "2");
        // ib_user_sa.h: PRIMARY 0x2 | GMP 0x1 | OUTBOUND 0x8 | INBOUND_REVERSE 0x20; PRIMARY|OUTBOUND; PRIMARY|INBOUND.
        assertThat(v)
                .containsEntry("a0.flags", "0x2b")
                .containsEntry("a1.flags", "0xa")
                .containsEntry("a2.flags", "0x12");
    }

    @Test
    void theSameAlternateRuleGivesAUnidirectionalQueryOnlyItsOutboundPair() throws Exception {
        start(POLICY);
        Map<String, String> v =
                ask(8, PathUse.UNIDIRECTIONAL, 0xffff, OptionalLong.of(0x0000000001061d2fL), OptionalInt.empty());
        assertThat(v)
                .containsEntry("attrs", "2")
                .containsEntry("kept", "1")
                .containsEntry("r0.slot", "outbound")
                .containsEntry("r0.dlid", "4")
                .containsEntry("a1.flags", "0xc")
                .containsEntry("a1.dlid", "5");
    }

    @Test
    void noRuleMatchesAQueryFromAnUnknownNamespace() throws Exception {
        start(POLICY);
        // P_Key 0x8004 is in no table: no device owns it, the origin is unknown, and netns rules cannot match.
        assertThat(ask(9, PathUse.ALL, 0x8004, OptionalLong.empty(), OptionalInt.empty()))
                .containsEntry("good", "1")
                .containsEntry("r0.sl", "1");
    }

    @Test
    void policyFilesWithTyposOrImpossibleValuesAreRefused() {
        assertThatThrownBy(() -> PolicyFile.parse("{\"rules\":[{\"match\":{\"netnss\":[\"a\"]}}]}", 1))
                .hasMessageContaining("unknown key \"netnss\"");
        assertThatThrownBy(() -> PolicyFile.parse("{\"rules\":[{\"action\":{\"sl\":16}}]}", 1))
                .hasMessageContaining("outside 0..15");
        assertThatThrownBy(() -> PolicyFile.parse("{\"rules\":[{\"action\":{\"deny\":true,\"fail\":true}}]}", 1))
                .hasMessageContaining("exclude");
        assertThatThrownBy(() -> PolicyFile.parse("{\"rules\":[{\"match\":{\"tclass\":[9,3]}}]}", 1))
                .hasMessageContaining("empty");
        assertThatThrownBy(() -> PolicyFile.parse("{\"rules\":[{\"name\":\"x\"},{\"name\":\"x\"}]}", 1))
                .hasMessageContaining("twice");
        assertThatThrownBy(() -> PolicyFile.parse("[1]", 1)).hasMessageContaining("JSON object");
    }

    @Test
    void aRateLimitComparesBandwidthNotEnumValues() {
        // rate enum 5 is 5 Gb/s and 3 is 10 Gb/s: "at most 10 Gb/s" keeps 5 and lowers 7 (40 Gb/s) to 3.
        Adjust max10 = Adjust.max(3);
        Action a = new Action(false, false, null, null, max10, null, false, false);
        assertThat(a.apply(Records.sample(5, 1).withRate(5)).rate()).isEqualTo(5);
        assertThat(a.apply(Records.sample(5, 1).withRate(7)).rate()).isEqualTo(3);
    }
}
