package io.cmdemux.dataplane.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.dataplane.consumer.CmEvent;
import io.cmdemux.ingress.resolve.Decision;
import io.cmdemux.ingress.resolve.ListenerTable;
import io.cmdemux.ingress.wire.CmRej;
import io.cmdemux.ingress.wire.FrameResult;
import io.cmdemux.ingress.wire.RoceDecoder;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * A consumer that leaves while a request is being handed to it: its leaving rejects what it had not answered
 * (REJ 28, Sessions), the hand-over then fails, and the requester must still get one REJ, not two. Found by
 * scripts/soak's wire log (a comm ID answered twice while pod3's consumer came and went, 2026-12-03).
 */
class DispatcherConsumerGoneTest {
    /** A consumer that leaves during the hand-over when {@code leaveDuringHandover}, and refuses it. */
    static final class LeavingConsumers extends DispatchLab.TableConsumers {
        final boolean leaveDuringHandover;
        Consumer<String> gone = o -> {};

        LeavingConsumers(ListenerTable listeners, boolean leaveDuringHandover) {
            super(listeners);
            this.leaveDuringHandover = leaveDuringHandover;
        }

        @Override
        public Handover deliver(Delivery d) {
            if (leaveDuringHandover) {
                gone.accept(d.listener().owner());
            }
            return Handover.GONE;
        }

        @Override
        public void onConsumerGone(Consumer<String> handler) {
            gone = handler;
        }

        @Override
        public boolean notify(String owner, CmEvent event) {
            return true;
        }
    }

    private static List<CmRej> rejsFor(boolean leaveDuringHandover) {
        DispatchLab lab = new DispatchLab(t -> new LeavingConsumers(t, leaveDuringHandover));
        Decision d = lab.onFrame(DispatchLab.req(0x1234, DispatchLab.LISTENER_PORT));
        assertThat(d.outcome()).as("the resolver's decision: %s", d).isEqualTo(Decision.Outcome.DELIVER);
        List<CmRej> rejs = new ArrayList<>();
        for (byte[] f : lab.sent) {
            if (RoceDecoder.decodeEthernet(f) instanceof FrameResult.Decoded fd
                    && fd.frame().mad().message() instanceof CmRej rej) {
                rejs.add(rej);
            }
        }
        return rejs;
    }

    @Test
    void aConsumerThatLeavesDuringTheHandoverGetsItsRequestRejectedOnce() {
        List<CmRej> rejs = rejsFor(true);
        assertThat(rejs).hasSize(1);
        assertThat(rejs.get(0).reason()).isEqualTo(28);
        assertThat(rejs.get(0).remoteCommId()).isEqualTo(0x1234);
    }

    @Test
    void aConsumerGoneBeforeTheHandoverGetsItsRequestRejectedOnceByTheDispatcher() {
        List<CmRej> rejs = rejsFor(false);
        assertThat(rejs).hasSize(1);
        assertThat(rejs.get(0).reason()).isEqualTo(28);
    }
}
