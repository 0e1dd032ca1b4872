package io.cmdemux.pathrecord.ls;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.gid.Gid;
import io.cmdemux.pathrecord.PathFlags;
import io.cmdemux.pathrecord.PathRecord;
import io.cmdemux.pathrecord.PathRecordData;
import io.cmdemux.pathrecord.Paths;
import io.cmdemux.pathrecord.testkit.LsChecker;
import io.cmdemux.pathrecord.testkit.Records;
import io.cmdemux.pathrecord.testkit.LsChecker.Input;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Our replies judged by src/test/c/ls_check.c, which follows what the kernel does with a reply
 * (sa_query.c ib_nl_handle_resolve_resp, ib_nl_is_good_resolve_resp, ib_nl_process_good_resolve_rsp;
 * cma.c cma_query_handler) and unpacks every kept record at path_rec_table's offsets. The expected
 * field values are the constants the records were built from, never our decoder's reading.
 */
class LsRepliesVsKernelCheckerTest {
    static PathRecord record(int dlid, int sl) {
        return Records.sample(dlid, sl);
    }

    @Test
    void allSixApmRecordsForPathUseAllKeepThreePrimariesFiledWhereTheRdmaCmWantsThem() {
        Paths p = new Paths(record(5, 1), record(6, 2), record(7, 3), record(9, 4), record(10, 5), record(11, 6));
        List<PathRecordData> recs = p.records(PathUse.ALL);
        assertThat(recs).hasSize(6);
        Map<String, String> v = LsChecker.check(
                new Input("resolve", PathUse.ALL.wire(), 77, LsCodec.encodeResolveReply(77, 1234, recs)));
        assertThat(v)
                .containsEntry("delivered", "1")
                .containsEntry("rc", "0")
                .containsEntry("matched", "1")
                .containsEntry("good", "1")
                .containsEntry("fallback", "0")
                .containsEntry("kept", "3")
                .containsEntry("cma", "ok")
                .containsEntry("has_path_rec", "1");
        assertThat(v).containsEntry("r0.slot", "path_rec").containsEntry("r0.dlid", "5").containsEntry("r0.sl", "1")
                .containsEntry("r0.flags", hex(PathFlags.PRIMARY | PathFlags.GMP | PathFlags.BIDIRECTIONAL));
        assertThat(v).containsEntry("r1.slot", "outbound").containsEntry("r1.dlid", "6").containsEntry("r1.sl", "2");
        assertThat(v).containsEntry("r2.slot", "inbound").containsEntry("r2.dlid", "7").containsEntry("r2.sl", "3");
        assertEveryField(v, "r0", record(5, 1));
        assertEveryField(v, "r2", record(7, 3));
    }

    @Test
    void unidirectionalKeepsOnlyThePrimaryOutboundRecord() {
        Paths p = Paths.of(record(5, 1)).withAlternates(record(9, 4), null, null);
        Map<String, String> v = LsChecker.check(new Input("resolve", PathUse.UNIDIRECTIONAL.wire(), 3,
                LsCodec.encodeResolveReply(3, 1, p.records(PathUse.UNIDIRECTIONAL))));
        assertThat(v)
                .containsEntry("good", "1")
                .containsEntry("kept", "1")
                .containsEntry("r0.dlid", "5")
                .containsEntry("r0.flags", hex(PathFlags.PRIMARY | PathFlags.OUTBOUND))
                .containsEntry("r0.slot", "outbound");
        assertThat(v).doesNotContainKey("r1.dlid");
    }

    @Test
    void gmpKeepsTheReversibleRecordAndNotTheAlternate() {
        Paths p = Paths.of(record(5, 1))
                .withAlternates(record(9, 4), null, null)
                .withDirectional(record(6, 2), record(7, 3));
        Map<String, String> v = LsChecker.check(new Input("resolve", PathUse.GMP.wire(), 3,
                LsCodec.encodeResolveReply(3, 1, p.records(PathUse.GMP))));
        assertThat(v)
                .containsEntry("good", "1")
                .containsEntry("kept", "1")
                .containsEntry("r0.dlid", "5")
                .containsEntry("r0.slot", "path_rec");
    }

    @Test
    void anOldKernelAskingGmpTakesTheFirstRecordOfAnAllReply() {
        // Linux ≤ 6.1 applies the GMP mask to every path use and keeps the first match: our ALL reply leads with it.
        Paths p = new Paths(record(5, 1), record(6, 2), record(7, 3), null, null, null);
        Map<String, String> v = LsChecker.check(new Input("resolve", PathUse.GMP.wire(), 3,
                LsCodec.encodeResolveReply(3, 1, p.records(PathUse.ALL))));
        assertThat(v).containsEntry("kept", "1").containsEntry("r0.dlid", "5");
    }

    @Test
    void anErrReplyMakesTheKernelFallBackToTheSa() {
        Map<String, String> v = LsChecker.check(new Input("resolve", 0, 9, LsCodec.encodeResolveError(9, 1)));
        assertThat(v)
                .containsEntry("matched", "1")
                .containsEntry("good", "0")
                .containsEntry("why", "err_flag")
                .containsEntry("fallback", "1");
        assertThat(v).containsEntry("flags", "0x100");
    }

    @Test
    void aWellFormedReplyWithoutAUsableRecordFailsTheQueryWithoutFallback() {
        Map<String, String> v =
                LsChecker.check(new Input("resolve", 0, 9, LsCodec.encodeResolveReply(9, 1, List.of())));
        assertThat(v)
                .containsEntry("good", "1")
                .containsEntry("fallback", "0")
                .containsEntry("kept", "0")
                .containsEntry("status", "-5");
    }

    @Test
    void aReplyForAnotherSeqIsNotMatched() {
        Map<String, String> v = LsChecker.check(new Input("resolve", 0, 10,
                LsCodec.encodeResolveReply(9, 1, Paths.of(record(5, 1)).records(PathUse.ALL))));
        assertThat(v).containsEntry("matched", "0");
    }

    @Test
    void theCheckerRefusesWhatTheKernelRefuses() {
        // Sanity of the judge itself: NLM_F_REQUEST on a reply is -EPERM; a PATH_RECORD over 72 bytes fails the policy.
        byte[] withRequest = LsCodec.encodeResolveReply(9, 1, Paths.of(record(5, 1)).records(PathUse.ALL));
        withRequest[6] |= 1;
        assertThat(LsChecker.check(new Input("resolve", 0, 9, withRequest))).containsEntry("rc", "-EPERM");
        byte[] longer = java.util.Arrays.copyOf(
                LsCodec.encodeResolveReply(9, 1, Paths.of(record(5, 1)).records(PathUse.ALL)), 16 + 80);
        java.nio.ByteBuffer.wrap(longer)
                .order(java.nio.ByteOrder.nativeOrder())
                .putInt(0, longer.length)
                .putShort(16, (short) 80);
        assertThat(LsChecker.check(new Input("resolve", 0, 9, longer)))
                .containsEntry("good", "0")
                .containsEntry("why", "policy");
    }

    @Test
    void setTimeoutIsClampedByTheKernelAndRefusedWithoutRequestFlag() {
        List<Map<String, String>> v = LsChecker.check(List.of(
                new Input("timeout", 0, 1, LsCodec.encodeSetTimeout(1, 5, 1500, true)),
                new Input("timeout", 0, 2, LsCodec.encodeSetTimeout(2, 5, 50, false)),
                new Input("timeout", 0, 3, LsCodec.encodeSetTimeout(3, 5, 900_000, false))));
        assertThat(v.get(0)).containsEntry("rc", "0").containsEntry("timeout", "1500").containsEntry("flags", "0x5");
        assertThat(v.get(1)).containsEntry("timeout", "100");
        assertThat(v.get(2)).containsEntry("timeout", "200000");
    }

    @Test
    void ipResolveRepliesCarryTheDgidTheKernelReads() {
        Gid g = Gid.parse("fe80::2:c903:0:abcd");
        List<Map<String, String>> v = LsChecker.check(List.of(
                new Input("ip", 0, 41, LsCodec.encodeIpResolveReply(41, 1, g)),
                new Input("ip", 0, 42, LsCodec.encodeIpResolveError(42, 1))));
        assertThat(v.get(0))
                .containsEntry("good", "1")
                .containsEntry("dgid_found", "1")
                .containsEntry("dgid", "fe80::2:c903:0:abcd");
        assertThat(v.get(1)).containsEntry("good", "0");
    }

    static String hex(int v) {
        return "0x" + Integer.toHexString(v);
    }

    static void assertEveryField(Map<String, String> v, String p, PathRecord r) {
        assertThat(v).containsEntry(p + ".len", "72");
        assertThat(v).containsEntry(p + ".service_id", String.format("0x%016x", r.serviceId()));
        assertThat(v).containsEntry(p + ".dgid", r.dgid().toString()).containsEntry(p + ".sgid", r.sgid().toString());
        assertThat(v).containsEntry(p + ".slid", Integer.toString(r.slid()));
        assertThat(v).containsEntry(p + ".raw_traffic", r.rawTraffic() ? "1" : "0");
        assertThat(v).containsEntry(p + ".flow_label", Integer.toString(r.flowLabel()));
        assertThat(v).containsEntry(p + ".hop_limit", Integer.toString(r.hopLimit()));
        assertThat(v).containsEntry(p + ".tclass", Integer.toString(r.tclass()));
        assertThat(v).containsEntry(p + ".reversible", r.reversible() ? "1" : "0");
        assertThat(v).containsEntry(p + ".numb_path", Integer.toString(r.numbPath()));
        assertThat(v).containsEntry(p + ".pkey", String.format("0x%04x", r.pkey()));
        assertThat(v).containsEntry(p + ".qos_class", Integer.toString(r.qosClass()));
        assertThat(v)
                .containsEntry(p + ".mtu_selector", Integer.toString(r.mtuSelector()))
                .containsEntry(p + ".mtu", Integer.toString(r.mtu()));
        assertThat(v)
                .containsEntry(p + ".rate_selector", Integer.toString(r.rateSelector()))
                .containsEntry(p + ".rate", Integer.toString(r.rate()));
        assertThat(v).containsEntry(p + ".packet_life_time_selector", Integer.toString(r.packetLifeTimeSelector()))
                .containsEntry(p + ".packet_life_time", Integer.toString(r.packetLifeTime()));
        assertThat(v)
                .containsEntry(p + ".preference", Integer.toString(r.preference()))
                .containsEntry(p + ".reserved_zero", "1");
    }
}
