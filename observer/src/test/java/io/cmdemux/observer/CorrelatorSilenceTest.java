package io.cmdemux.observer;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.observer.trace.KernelEvent;
import io.cmdemux.observer.trace.ReqProbeEvent;
import io.cmdemux.observer.trace.TraceLineParser;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Live silence (no requester events in the stream): a request the kprobe saw and nothing answered is silence
 * once the timeout has passed, exactly once, and what is settled is forgotten after the retention time. The lines
 * are macvlan-one-pod's (the lab's recording).
 */
class CorrelatorSilenceTest {
    private static final long S = 1_000_000_000L;
    private static final long SILENCE = 5 * S;
    private static final long RETAIN = 60 * S;

    private static KernelEvent line(String match) throws Exception {
        String trace = Files.readString(LabFixtures.LAB.resolve("macvlan-one-pod/tracefs/trace.txt"),
                StandardCharsets.US_ASCII);
        String found = trace.lines().filter(l -> l.contains(match)).findFirst().orElseThrow();
        return new TraceLineParser().parse(found);
    }

    private static Correlator live() throws Exception {
        return new Correlator(new LabRecording(LabFixtures.LAB.resolve("macvlan-one-pod")).rejectReasons(), false);
    }

    @Test
    void aRequestTheKprobeSawAndNothingAnsweredIsSilenceAfterTheTimeoutOnce() throws Exception {
        Correlator c = live();
        KernelEvent req = line(" req: (");
        long t = req.header().timestampNanos();
        assertThat(c.accept(req)).isEmpty();
        assertThat(c.expire(t + SILENCE - 1, SILENCE, RETAIN)).isEmpty();
        List<KernelRequest> silent = c.expire(t + SILENCE, SILENCE, RETAIN);
        assertThat(silent).hasSize(1);
        KernelRequest r = silent.get(0);
        assertThat(r.localCommId()).isEqualTo(((ReqProbeEvent) req).remoteId());
        assertThat(r.outcome()).isInstanceOf(KernelOutcome.Silent.class);
        assertThat(r.device()).isEqualTo("rxe0");
        assertThat(r.timestampNanos()).isEqualTo(t);
        assertThat(c.expire(t + 2 * SILENCE, SILENCE, RETAIN)).as("declared once").isEmpty();
        assertThat(c.finish()).as("nothing left for the end either").isEmpty();
    }

    @Test
    void aRequestDeliveredInTimeIsNeverSilenceAndAllIsForgottenAfterTheRetention() throws Exception {
        Correlator c = live();
        long t = 0;
        int settled = 0;
        String trace = Files.readString(LabFixtures.LAB.resolve("macvlan-one-pod/tracefs/trace.txt"),
                StandardCharsets.US_ASCII);
        TraceLineParser p = new TraceLineParser();
        for (String l : trace.lines().toList()) {
            KernelEvent e = p.parse(l);
            if (e != null) {
                settled += c.accept(e).size();
                if (e.header() != null) {
                    t = Math.max(t, e.header().timestampNanos());
                }
            }
        }
        assertThat(settled).as("macvlan-one-pod's requests, as expected.tsv lists them")
                .isEqualTo(new LabRecording(LabFixtures.LAB.resolve("macvlan-one-pod")).expected().size());
        assertThat(c.expire(t + SILENCE, SILENCE, RETAIN)).as("no silence after deliveries").isEmpty();
        assertThat(c.held()).isPositive();
        assertThat(c.expire(t + RETAIN + S, SILENCE, RETAIN)).isEmpty();
        assertThat(c.held()).as("requests, children and tasks after the retention time").isZero();
    }

    @Test
    void aRetryOfARequestAlreadyDeclaredSilentIsNotANewRequest() throws Exception {
        Correlator c = live();
        KernelEvent req = line(" req: (");
        long t = req.header().timestampNanos();
        c.accept(req);
        assertThat(c.expire(t + SILENCE, SILENCE, RETAIN)).hasSize(1);
        assertThat(c.accept(req)).isEmpty();
        assertThat(c.expire(t + 3 * SILENCE, SILENCE, RETAIN)).isEmpty();
    }
}
