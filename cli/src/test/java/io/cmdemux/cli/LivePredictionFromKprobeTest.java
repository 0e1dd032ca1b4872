package io.cmdemux.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.ingress.resolve.Decision;
import io.cmdemux.ingress.resolve.HostState;
import io.cmdemux.observer.KernelRequest;
import io.cmdemux.observer.LabRecording;
import io.cmdemux.observer.Observation;
import io.cmdemux.observer.Observations;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Live `watch` predicts from the kprobe's fields alone (no capture on a real host): the rdma_cm header's
 * addresses, the service ID, device, port, P_Key and our GID, asked of the resolver as `explain` asks. On the
 * lab recordings that carry the kprobe, that prediction agrees with what the kernel did, for every request the
 * kprobe saw.
 */
class LivePredictionFromKprobeTest {
    static List<Path> recordings() throws Exception {
        return WatchCommandTest.recordings();
    }

    @ParameterizedTest
    @MethodSource("recordings")
    void predictionFromTheKprobesFieldsAgreesWithTheKernel(Path dir) throws Exception {
        ResolveOptions o = new ResolveOptions();
        o.lab = dir;
        HostState state = o.load(new PrintWriter(new StringWriter()));
        LabRecording rec = new LabRecording(dir);
        Observations obs = new Observations(rec.nldev(new ArrayList<>()), null, rec.pids());
        int withProbe = 0;
        for (KernelRequest r : rec.replay().requests()) {
            if (r.probe() == null) {
                continue;
            }
            withProbe++;
            Observation ob = obs.of(r);
            Decision d = LiveWatch.predict(state, r);
            assertThat(d).as("%s %s: a prediction from %s", dir.getFileName(), r.localCommIdText(), r.probe())
                    .isNotNull();
            assertThat(LiveWatch.agrees(state, ob, d)).as("%s %s: kernel %s, cmdemux %s", dir.getFileName(),
                    r.localCommIdText(), ob.label(), LabCheckCommand.outcome(state, d)).isTrue();
        }
        if (rec.trace().toFile().length() > 0 && java.nio.file.Files.readString(rec.trace()).contains(" req: (")) {
            assertThat(withProbe).as("requests with the kprobe in %s", dir).isPositive();
        }
    }
}
