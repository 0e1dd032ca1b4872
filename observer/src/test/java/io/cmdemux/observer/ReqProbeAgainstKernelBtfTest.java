package io.cmdemux.observer;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.observer.trace.KernelEvent;
import io.cmdemux.observer.trace.ReqProbeEvent;
import io.cmdemux.observer.trace.TraceLineParser;
import io.cmdemux.observer.trace.UnknownEvent;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The observer's kprobe reads the request's fields at offsets that ReqProbe computed from the lab guest's BTF.
 * Beside it the lab defined cmdemux_check/req, the same fields named for the kernel's own BTF resolution of probe
 * arguments ({@code cm_id->remote_id}, {@code ib_event->param.req_rcvd.port}): in every call both read the same
 * values, so our offsets are the kernel's.
 */
class ReqProbeAgainstKernelBtfTest {
    @Test
    void ourOffsetsReadWhatTheKernelsOwnBtfResolutionReads() throws Exception {
        TraceLineParser p = new TraceLineParser();
        int compared = 0;
        int comparedGid = 0;
        for (Path dir : LabFixtures.withTrace()) {
            List<KernelEvent> events = new ArrayList<>();
            for (String l : Files.readAllLines(dir.resolve("tracefs/trace.txt"), StandardCharsets.US_ASCII)) {
                KernelEvent e = p.parse(l);
                if (e != null) {
                    events.add(e);
                }
            }
            for (int i = 0; i < events.size(); i++) {
                if (!(events.get(i) instanceof ReqProbeEvent ours)) {
                    continue;
                }
                UnknownEvent check = checkBefore(events, i, ours, "req_btf");
                assertThat(check).as("%s: the kernel-resolved probe's line for %s", dir.getFileName(), ours)
                        .isNotNull();
                // Both read the __be32 comm IDs as host integers; ReqProbeEvent swaps them to wire order.
                assertThat(check.body()).contains(" remote_id=" + swap(ours.remoteId()) + " ")
                        .contains(" local_id=" + swap(ours.localId()) + " ")
                        .contains((ours.sidr() ? " sidr_port=" : " port=") + ours.port() + " ")
                        .endsWith(" event=" + ours.cmEvent());
                compared++;
                if (ours.gidIndex() != ReqProbeEvent.NO_GID_INDEX) {
                    UnknownEvent gid = checkBefore(events, i, ours, "req_gid");
                    assertThat(gid).as("%s: the kernel-resolved GID probe's line for %s", dir.getFileName(), ours)
                            .isNotNull();
                    assertThat(gid.body()).contains(" remote_id=" + swap(ours.remoteId()) + " ")
                            .contains((ours.sidr() ? " sidr_gid_index=" : " gid_index=") + ours.gidIndex());
                    comparedGid++;
                }
            }
        }
        assertThat(compared).as("requests recorded with both kprobes (scripts/lab/observer-kprobe)").isPositive();
        assertThat(comparedGid).as("requests recorded with the GID index and its kernel-resolved twin").isPositive();
    }

    private static long swap(long commId) {
        return Integer.toUnsignedLong(Integer.reverseBytes((int) commId));
    }

    /** A cmdemux_check line of the same call: same task, just before ours (all probe the function's entry). */
    private static UnknownEvent checkBefore(List<KernelEvent> events, int i, ReqProbeEvent ours, String event) {
        for (int j = i - 1; j >= 0 && j >= i - 4; j--) {
            // Recordings before cmdemux_check/req_gid named the first twin cmdemux_check/req.
            if (events.get(j) instanceof UnknownEvent u && (u.header().event().equals(event)
                    || event.equals("req_btf") && u.header().event().equals(ReqProbe.EVENT))
                    && u.header().pid() == ours.header().pid()) {
                return u;
            }
        }
        return null;
    }
}
