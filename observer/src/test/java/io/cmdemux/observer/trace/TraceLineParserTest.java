package io.cmdemux.observer.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cmdemux.observer.LabFixtures;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The trace line parser on lines the lab kernel (7.3.4) wrote, and on broken ones. */
class TraceLineParserTest {
    private final TraceLineParser parser = new TraceLineParser();

    static List<Path> fixtures() throws Exception {
        return LabFixtures.withTrace();
    }

    @ParameterizedTest
    @MethodSource("fixtures")
    void everyLineOfARecordingParses(Path dir) throws Exception {
        int events = 0;
        for (String line : Files.readAllLines(dir.resolve("tracefs/trace.txt"), StandardCharsets.US_ASCII)) {
            if (parser.parse(line) != null) {
                events++;
            }
        }
        assertThat(events).isPositive();
    }

    @Test
    void icmSendRejGivesBothCommIdsAndTheKernelsReasonName() throws Exception {
        // it/fixtures/lab/ps-ib-init-only/tracefs/trace.txt
        KernelEvent e = parser.parse("     kworker/0:0-9       [000] d..1.   665.858940: icm_send_rej:"
                + " local_id=1195629532 remote_id=1212406748 state=REQ_RCVD reason=REJ_CONSUMER_DEFINED");
        assertThat(e).isEqualTo(new IcmEvent(new TraceHeader("kworker/0:0", 9, 0, 665_858_940_000L, "icm_send_rej"),
                1195629532L, 1212406748L, "REQ_RCVD", "REJ_CONSUMER_DEFINED"));
    }

    @Test
    void rdmaCmaEventsGiveTheIdTheAddressesAndTheEventName() throws Exception {
        KernelEvent e = parser.parse("     kworker/0:3-59      [000] .....    81.209726: cm_req_handler: cm.id=0"
                + " src=0.0.0.0:7471 dst=(einval) tos=0 REQ_RECEIVED (1)");
        assertThat(e).isEqualTo(new CmaEvent(new TraceHeader("kworker/0:3", 59, 0, 81_209_726_000L,
                "cm_req_handler"), 0, "0.0.0.0:7471", "(einval)", "REQ_RECEIVED", null));
        CmaEvent attach = (CmaEvent) parser.parse("     kworker/0:3-59      [000] .....    81.210506: cm_id_attach:"
                + " cm.id=0 src=[2001:db8::11]:7471 dst=[2001:db8::2]:56106 device=rxe0");
        assertThat(attach.device()).isEqualTo("rxe0");
        assertThat(attach.src()).isEqualTo("[2001:db8::11]:7471");
    }

    @Test
    void aTaskNameWithSpacesDashesAndBracketsIsKept() throws Exception {
        KernelEvent e = parser.parse(" my-tool [x] 2-1234  [001] .....   1.000001: cm_id_destroy: cm.id=7"
                + " src=(einval) dst=(einval) tos=0");
        assertThat(e.header().task()).isEqualTo("my-tool [x] 2");
        assertThat(e.header().pid()).isEqualTo(1234);
        assertThat(e.header().cpu()).isEqualTo(1);
    }

    @Test
    void withoutTheIrqInfoColumnTheLineStillParses() throws Exception {
        KernelEvent e = parser.parse("           rping-578     [000]    81.200817: cm_send_req: cm.id=4"
                + " src=192.0.2.2:56106 dst=192.0.2.11:7471 tos=0 qp_num=18");
        assertThat(e.header().timestampNanos()).isEqualTo(81_200_817_000L);
    }

    @Test
    void lostEventsAreTheirOwnRecord() throws Exception {
        assertThat(parser.parse("CPU:1 [LOST 4096 EVENTS]")).isEqualTo(new LostEvents(1, 4096));
    }

    @Test
    void anEventOfAnotherSubsystemIsUnknownNotAnError() throws Exception {
        assertThat(parser.parse("          <idle>-0       [001] d.h1.  5.1: irq_handler_entry: irq=24 name=virtio0"))
                .isInstanceOf(UnknownEvent.class);
    }

    @Test
    void commentsAndBlankLinesAreNoEvent() throws Exception {
        assertThat(parser.parse("# tracer: nop")).isNull();
        assertThat(parser.parse("")).isNull();
    }

    @Test
    void theKprobeLinesOfARecordingNameTheRequestsThatDeriveExpectedFound() throws Exception {
        Path dir = LabFixtures.LAB.resolve("ps-ib-pod");
        java.util.Map<String, String> dst = new java.util.HashMap<>();
        for (String l : Files.readAllLines(dir.resolve("expected.tsv"), StandardCharsets.UTF_8)) {
            if (!l.startsWith("#")) {
                dst.put(l.split("\t")[0], l.split("\t")[1]);
            }
        }
        int seen = 0;
        for (String line : Files.readAllLines(dir.resolve("tracefs/trace.txt"), StandardCharsets.US_ASCII)) {
            if (!(parser.parse(line) instanceof ReqProbeEvent r)) {
                continue;
            }
            seen++;
            String id = String.format("0x%08x", r.remoteId());
            assertThat(dst).as("%s from %s", id, line).containsKey(id);
            assertThat(r.device()).isEqualTo("rxe0");
            assertThat(r.port()).isEqualTo(1);
            assertThat(r.pkey()).isEqualTo(0xffff);
            assertThat(r.sidr()).isFalse();
            // rdma_cm's header: cma_version 0, IP version 4 in bits 7:4, dst_addr's IPv4 in its last 4 bytes.
            assertThat(r.cmaHeader()).hasSize(36);
            assertThat(r.cmaHeader()[1] & 0xff).isEqualTo(0x40);
            byte[] v4 = java.util.Arrays.copyOfRange(r.cmaHeader(), 32, 36);
            assertThat(java.net.InetAddress.getByAddress(v4).getHostAddress()).isEqualTo(dst.get(id));
            // The REQ's primary path SGID is our GID: the destination as ::ffff:a.b.c.d (RoCE v2).
            assertThat(java.util.Arrays.copyOfRange(r.sgid(), 12, 16)).isEqualTo(v4);
            assertThat(r.serviceId() >>> 16).as("port space of %x", r.serviceId()).isIn(0x0106L, 0x013fL);
        }
        assertThat(seen).as("cmdemux/req lines in %s", dir).isPositive();
    }

    @Test
    void brokenLinesAreMalformedWithTheColumn() {
        String good = "     kworker/0:3-59      [000] .....    79.171840: icm_no_listener_err: local_id=2017713116"
                + " remote_id=2034490332 state=REQ_RCVD lap_state=LAP_UNINIT";
        for (String bad : List.of(good.substring(0, 30), good.replace("79.171840", "79.x71840"),
                good.replace("remote_id=2034490332", "remote_id=20344x0332"), good.replace("-59 ", "-  "),
                good.replace("[000]", "[0a0]"), "CPU:1 [LOST many EVENTS]", good.replace("local_id=", "local_id"),
                good.replace("2034490332", "99999999999999999999999"))) {
            assertThatThrownBy(() -> parser.parse(bad)).as(bad).isInstanceOf(MalformedTraceLineException.class);
        }
    }
}
