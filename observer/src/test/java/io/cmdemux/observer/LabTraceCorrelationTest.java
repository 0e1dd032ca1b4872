package io.cmdemux.observer;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.observer.nldev.NldevDump;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every lab recording's tracefs events, through the parser, the correlator and the nldev/pid mapping, give the
 * outcome that derive-expected found independently (from the listeners' logs and the client's capture), for
 * every request and no other.
 */
class LabTraceCorrelationTest {
    static List<Path> fixtures() throws Exception {
        return LabFixtures.withTrace();
    }

    @ParameterizedTest
    @MethodSource("fixtures")
    void kernelOutcomeFromTraceEqualsExpectedTsv(Path dir) throws Exception {
        LabRecording rec = new LabRecording(dir);
        LabRecording.Replay replay = rec.replay();
        assertThat(replay.malformed()).as("malformed lines in %s", rec.trace()).isEmpty();
        assertThat(replay.lostEvents()).isZero();
        List<String> skipped = new ArrayList<>();
        NldevDump dump = rec.nldev(skipped);
        assertThat(skipped).isEmpty();
        Observations obs = new Observations(dump, null, rec.pids());
        Map<String, String> got = new LinkedHashMap<>();
        for (KernelRequest r : replay.requests()) {
            got.put(r.localCommIdText(), obs.of(r).label());
        }
        assertThat(got).as("%s: kernel outcomes from tracefs", dir.getFileName())
                .containsExactlyInAnyOrderEntriesOf(LabFixtures.expected(dir));
    }

    @ParameterizedTest
    @MethodSource("fixtures")
    void everyDeliveredRequestNamesItsListenerCmIdFromTheNldevDump(Path dir) throws Exception {
        LabRecording rec = new LabRecording(dir);
        Observations obs = new Observations(rec.nldev(new ArrayList<>()), null, rec.pids());
        for (KernelRequest r : rec.replay().requests()) {
            Observation o = obs.of(r);
            if (r.outcome() instanceof KernelOutcome.Delivered d) {
                assertThat(o.listener()).as("listener cm.id %d on %s", d.listenerCmId(), d.device()).isNotNull();
                assertThat(o.listener().listening()).isTrue();
                assertThat(o.listener().src().getPort()).as("the tracepoint's listener address %s",
                        d.listenerAddress()).isEqualTo(Integer.parseInt(d.listenerAddress()
                        .substring(d.listenerAddress().lastIndexOf(':') + 1)));
            } else {
                assertThat(o.listener()).isNull();
            }
        }
    }
}
