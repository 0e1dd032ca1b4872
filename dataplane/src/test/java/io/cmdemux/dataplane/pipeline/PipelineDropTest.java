package io.cmdemux.dataplane.pipeline;

import io.cmdemux.dataplane.metrics.Metrics;
import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.ingress.resolve.ResolverMode;
import io.cmdemux.ingress.wire.Frames;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Frames a receiver drops go no further than the tap, each counted by why: rxe_icrc_check fails a wrong
 * ICRC and a missing one alike (rxe reads the MAD's last 4 bytes as the ICRC), and a frame that is no CM
 * MAD is malformed. The collaborators are absent: a dropped frame must not reach them.
 */
class PipelineDropTest {

    @Test
    void framesWithAWrongOrMissingIcrcAreCountedApartAndDropped() {
        Metrics metrics = new Metrics();
        Pipeline pipeline = new Pipeline(() -> null, null, ResolverMode.KERNEL, true, null, null, null, metrics, null);
        byte[] good = Frames.reqV4(null);
        byte[] wrong = good.clone();
        wrong[wrong.length - 1] ^= 0x55;
        byte[] missing = Frames.withoutIcrc(good);
        byte[] shortMad = Arrays.copyOf(good, good.length - 40);

        for (byte[] f : new byte[][] {wrong, missing, missing, shortMad}) {
            assertThat(pipeline.onFrame("rxe0", f, 0, null)).isNull();
        }
        assertThat(count(metrics, "bad-icrc")).isEqualTo(1);
        assertThat(count(metrics, "missing-icrc")).isEqualTo(2);
        assertThat(count(metrics, "malformed")).isEqualTo(1);
    }

    private static double count(Metrics metrics, String result) {
        return metrics.registry().counter("frames", "result", result).count();
    }
}
