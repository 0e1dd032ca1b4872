package io.cmdemux.dataplane.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.ingress.resolve.Decision;
import io.cmdemux.ingress.resolve.ListenerTable;
import io.cmdemux.ingress.wire.CmMra;
import io.cmdemux.ingress.wire.CmRej;
import io.cmdemux.ingress.wire.FrameResult;
import io.cmdemux.ingress.wire.RoceDecoder;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * A retransmitted REQ (same comm ID and CA GUID) gets our first answer again, the same bytes, though the
 * duplicate window keeps only what the answer was made of and builds it again from the retransmission.
 */
class DispatcherRepeatTest {
    /** A consumer that takes every request and keeps the REJECT handler, as the control server does. */
    static final class TakingConsumers extends DispatchLab.TableConsumers {
        RejectHandler rejects;
        long lastTraceId;

        TakingConsumers(ListenerTable listeners) {
            super(listeners);
        }

        @Override
        public Handover deliver(Delivery d) {
            lastTraceId = d.traceId();
            return Handover.TAKEN;
        }

        @Override
        public void onReject(RejectHandler handler) {
            rejects = handler;
        }
    }

    @Test
    void theDaemonsOwnRejIsRepeatedByteForByte() {
        DispatchLab lab = new DispatchLab(TakingConsumers::new);
        byte[] req = DispatchLab.req(0x2001, DispatchLab.LISTENER_PORT + 1); // nobody listens there
        assertThat(lab.onFrame(req).outcome()).isEqualTo(Decision.Outcome.REJECT);
        assertThat(lab.sent).hasSize(1);
        assertThat(message(lab.sent.get(0))).isInstanceOf(CmRej.class);

        lab.onFrame(req.clone());
        assertThat(lab.sent).hasSize(2);
        assertThat(lab.sent.get(1)).isEqualTo(lab.sent.get(0));
    }

    @Test
    void aConsumersRejWithItsPrivateDataIsRepeatedByteForByte() {
        TakingConsumers[] c = new TakingConsumers[1];
        DispatchLab lab = new DispatchLab(t -> c[0] = new TakingConsumers(t));
        byte[] req = DispatchLab.req(0x2002, DispatchLab.LISTENER_PORT);
        assertThat(lab.onFrame(req).outcome()).isEqualTo(Decision.Outcome.DELIVER);
        byte[] ari = {1, 2, 3};
        byte[] pd = "consumer-1 says no".getBytes(StandardCharsets.US_ASCII);
        c[0].rejects.reject(c[0].lastTraceId, 28, ari, pd);
        c[0].rejects.rejectsRead(); // the end of the read it came in, as the control server calls it
        byte[] first = lab.sent.get(lab.sent.size() - 1);
        CmRej rej = (CmRej) message(first);
        assertThat(rej.reason()).isEqualTo(28);
        assertThat(rej.remoteCommId()).isEqualTo(0x2002);
        assertThat(new String(rej.privateData().toByteArray(), StandardCharsets.US_ASCII)).startsWith(
                "consumer-1 says no");
        int before = lab.sent.size();

        lab.onFrame(req.clone());
        assertThat(lab.sent).hasSize(before + 1);
        assertThat(lab.sent.get(before)).isEqualTo(first);
    }

    @Test
    void aDeliveredReqWhoseSessionIsGoneIsAnsweredWithItsMra() {
        TakingConsumers[] c = new TakingConsumers[1];
        DispatchLab lab = new DispatchLab(t -> c[0] = new TakingConsumers(t));
        byte[] req = DispatchLab.req(0x2003, DispatchLab.LISTENER_PORT);
        assertThat(lab.onFrame(req).outcome()).isEqualTo(Decision.Outcome.DELIVER);
        byte[] mra = lab.sent.stream().filter(f -> message(f) instanceof CmMra).findFirst().orElseThrow();
        // The consumer lets go of it (the session is forgotten within the duplicate window).
        assertThat(lab.sessions.forget(c[0].lastTraceId)).isTrue();
        int before = lab.sent.size();

        lab.onFrame(req.clone());
        assertThat(lab.sent).hasSize(before + 1);
        assertThat(lab.sent.get(before)).isEqualTo(mra);
    }

    private static Object message(byte[] frame) {
        FrameResult r = RoceDecoder.decodeEthernet(frame);
        assertThat(r).isInstanceOf(FrameResult.Decoded.class);
        return ((FrameResult.Decoded) r).frame().mad().message();
    }
}
