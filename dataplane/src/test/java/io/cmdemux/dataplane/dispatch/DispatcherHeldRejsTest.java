package io.cmdemux.dataplane.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.dataplane.reply.FrameSender;
import io.cmdemux.ingress.resolve.Decision;
import io.cmdemux.ingress.wire.CmRej;
import io.cmdemux.ingress.wire.FrameResult;
import io.cmdemux.ingress.wire.RoceDecoder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A consumer's REJECTs of one read leave together when the read ends (Consumers.RejectHandler.rejectsRead): one
 * call of the port's batch send, as the REPs of a read's ACCEPTs do, instead of a sendto each.
 */
class DispatcherHeldRejsTest {
    /** A soft port that writes down each call: a frame alone, or a batch. */
    static final class Calls implements FrameSender {
        final List<List<byte[]>> calls = new ArrayList<>();

        @Override
        public void send(byte[] frame) {
            calls.add(List.of(frame));
        }

        @Override
        public void send(List<byte[]> frames) {
            calls.add(List.copyOf(frames));
        }
    }

    @Test
    void theRejsOfOneReadLeaveInOneCallWhenTheReadEnds() throws Exception {
        List<Long> traces = new ArrayList<>();
        DispatcherRepeatTest.TakingConsumers[] c = new DispatcherRepeatTest.TakingConsumers[1];
        DispatchLab lab = new DispatchLab(t -> c[0] = new DispatcherRepeatTest.TakingConsumers(t));
        Calls port = new Calls();
        for (int comm = 0x3001; comm <= 0x3003; comm++) {
            Decision d = lab.pipeline.onFrame("rxe0", DispatchLab.req(comm, DispatchLab.LISTENER_PORT),
                    System.nanoTime(), port);
            assertThat(d.outcome()).isEqualTo(Decision.Outcome.DELIVER);
            traces.add(c[0].lastTraceId);
        }
        int mras = port.calls.size();
        for (long t : traces) {
            c[0].rejects.reject(t, 28, new byte[0], new byte[0]);
        }
        assertThat(port.calls).as("nothing leaves before the read ends").hasSize(mras);
        c[0].rejects.rejectsRead();
        assertThat(port.calls).hasSize(mras + 1);
        List<byte[]> batch = port.calls.get(mras);
        assertThat(batch).hasSize(3);
        List<Integer> remote = new ArrayList<>();
        for (byte[] f : batch) {
            CmRej rej = (CmRej) ((FrameResult.Decoded) RoceDecoder.decodeEthernet(f)).frame().mad().message();
            assertThat(rej.reason()).isEqualTo(28);
            remote.add(rej.remoteCommId());
        }
        assertThat(remote).containsExactly(0x3001, 0x3002, 0x3003);
        assertThat(lab.metrics.scrape()).contains("frames_sent_total{kind=\"rej\"} 3.0");
    }
}
