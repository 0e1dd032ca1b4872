package io.cmdemux.dataplane.dispatch;

import io.cmdemux.dataplane.cm.Sessions;
import io.cmdemux.dataplane.consumer.Consumers;
import io.cmdemux.dataplane.metrics.Metrics;
import io.cmdemux.dataplane.reply.FrameSender;
import io.cmdemux.dataplane.reply.HeldFrames;
import io.cmdemux.dataplane.reply.RejLimiter;
import io.cmdemux.dataplane.reply.ReturnPath;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.cmdemux.ingress.resolve.Decision;
import io.cmdemux.ingress.resolve.PacketMeta;
import io.cmdemux.ingress.wire.CmRej;
import io.cmdemux.ingress.wire.CmReq;
import io.cmdemux.ingress.wire.CmSidrRep;
import io.cmdemux.ingress.wire.CmSidrReq;
import io.cmdemux.ingress.wire.Octets;
import io.cmdemux.ingress.wire.RoceFrame;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Acts on decisions: delivers a request to its consumer and acknowledges it with an MRA (as
 * cma_ib_req_handler does once the listener took the event), answers with a REJ from the address
 * the requester targeted, or drops silently where the kernel would. Retransmitted REQs (same local
 * comm ID and CA GUID) reach the consumer once; their answer is repeated instead.
 */
public final class Dispatcher {
    private static final Logger log = LoggerFactory.getLogger(Dispatcher.class);

    private final Consumers consumers;
    private final Metrics metrics;
    private final RejLimiter limiter;
    private final AtomicLong nextTraceId = new AtomicLong(1);
    /**
     * Requests recently answered without a session, or whose session has ended: (local comm ID, CA
     * GUID) → what we answered. A REQ with a live session is known by the session (which holds the
     * same key), so that its entry here is not paid for every unanswered REQ.
     */
    private final Cache<ReqKey, Answer> seen;
    private final long duplicateWindowNanos;
    /**
     * Deliveries a consumer may still REJECT that have no session (SIDR REQs): trace ID → the request
     * and where to answer it. A REQ is answered from its session, which holds the same.
     */
    private final Cache<Long, Pending> pending;
    private final Sessions sessions;
    /** The REJs (and SIDR REPs) consumers asked for in one read, until the read ends. */
    private final HeldFrames consumerRejs;

    private record ReqKey(long localCommId, long caGuid) {}

    /**
     * Our answer to one request, kept as what it was made of rather than as its bytes: a retransmission carries
     * everything else it was built from (the headers to turn around, the transaction ID, the requester's comm ID),
     * so the answer is built again from it, the same bytes as the first. A delivered REQ's repeat is its MRA, a
     * dropped one's nothing. The duplicate window holds one of these for every REQ answered in it: 600,000 at
     * 10,000 REJs a second, where a frame each (some 380 bytes) was most of the daemon's heap (scripts/soak).
     */
    private record Answer(Decision.Outcome outcome, FrameSender port, int localCommId, int reason, byte[] ari,
            byte[] privateData) {
        static Answer of(Decision.Outcome outcome, FrameSender port, int localCommId) {
            return new Answer(outcome, port, localCommId, 0, NONE, NONE);
        }

        byte[] repeat(RoceFrame retransmission) {
            return switch (outcome) {
                case DELIVER -> ReturnPath.of(retransmission).mra(localCommId);
                case REJECT -> {
                    ReturnPath r = ReturnPath.of(retransmission);
                    yield r.answer(rej(localCommId, r.remoteCommId(), reason, ari, privateData));
                }
                default -> null;
            };
        }
    }

    private static final byte[] NONE = new byte[0];

    /**
     * What a consumer's REJECT of a delivery without a session needs; {@code sidr} is the SIDR REQ, or null for a REQ.
     */
    private record Pending(ReturnPath request, FrameSender port, int localCommId, CmSidrReq sidr) {}

    public Dispatcher(Consumers consumers, Metrics metrics, RejLimiter limiter, Duration duplicateWindow,
            Sessions sessions) {
        this.consumers = consumers;
        this.sessions = sessions;
        this.metrics = metrics;
        this.limiter = limiter;
        // Caffeine's upkeep (expiry, eviction) runs on the thread that wrote, the tap's, in the batches
        // Caffeine makes anyway: a common-pool task for it is a thread wake-up for every few REQs.
        this.seen = Caffeine.newBuilder().expireAfterWrite(duplicateWindow).maximumSize(1 << 20)
                .executor(Runnable::run).build();
        this.pending = Caffeine.newBuilder().expireAfterWrite(Duration.ofMinutes(2)).maximumSize(1 << 20)
                .executor(Runnable::run).build();
        this.duplicateWindowNanos = duplicateWindow.toNanos();
        this.consumerRejs = new HeldFrames(metrics);
        consumers.onReject(new Consumers.RejectHandler() {
            @Override
            public void reject(long traceId, int reason, byte[] ari, byte[] privateData) {
                consumerRejected(traceId, reason, ari, privateData);
            }

            @Override
            public void rejectsRead() {
                consumerRejs.send();
            }
        });
        sessions.onForgotten(this::sessionForgotten);
    }

    /**
     * Answers a retransmitted REQ (same local comm ID and CA GUID) as before, if it is one: a connection
     * still being set up repeats its latest answer (MRA or REP), a rejected one its REJ.
     *
     * @return whether {@code frame} was a retransmission, which needs no new decision
     */
    public boolean repeatIfDuplicate(RoceFrame frame) {
        if (!(frame.mad().message() instanceof CmReq req)) {
            return false;
        }
        if (sessions.duplicateReq(req)) {
            metrics.duplicate();
            return true;
        }
        Answer earlier = seen.getIfPresent(key(frame));
        if (earlier == null) {
            return false;
        }
        metrics.duplicate();
        byte[] again = earlier.repeat(frame);
        if (again != null) {
            send(earlier.port(), again, "repeat");
        }
        return true;
    }

    /** The trace ID the next decision will get (another thread may take it first). */
    public long peekTraceId() {
        return nextTraceId.get();
    }

    /** A trace ID for the next decision, from 1. */
    public long newTraceId() {
        return nextTraceId.getAndIncrement();
    }

    /**
     * Acts on {@code d} for a request that is no retransmission ({@link #repeatIfDuplicate}).
     *
     * @return what was done: {@code d}, or a DROP when the request could not be kept
     */
    public Decision dispatch(long traceId, RoceFrame frame, byte[] raw, PacketMeta meta, Decision d, FrameSender port) {
        int localCommId = sessions.newCommId();
        switch (d.outcome()) {
            case DELIVER -> {
                // Recorded before the consumer can see the request: its ACCEPT or REJECT (on an event loop)
                // may come back before deliver() returns here, and must find the connection.
                if (!meta.sidr() && !sessions.delivered(traceId, localCommId, frame, port, d.listener().owner())) {
                    // cma_ib_req_handler fails with -ENOMEM when it cannot keep the request, and cm_destroy_id
                    // then stays silent "to allow future retries": the peer's retransmission may find room.
                    metrics.decision("drop", "");
                    return d.droppedFor(Decision.Drop.SESSIONS_FULL, SESSIONS_FULL);
                }
                if (meta.sidr()) {
                    pending.put(traceId, new Pending(ReturnPath.of(frame), port, localCommId,
                            (CmSidrReq) frame.mad().message()));
                }
                Consumers.Handover handover = consumers.deliver(new Consumers.Delivery(traceId, d.listener(),
                        raw, meta, d));
                if (handover != Consumers.Handover.TAKEN) {
                    pending.invalidate(traceId);
                    if (!meta.sidr() && !sessions.forget(traceId)) {
                        // The consumer left while this was handed over, and its leaving rejected the request
                        // (Sessions.consumerGone): one REJ on the wire, not two.
                        metrics.decision("reject", "consumer-gone");
                        return d;
                    }
                    if (meta.sidr()) {
                        // cm_sidr_req_handler: whatever the handler's error (-ENOMEM for a full backlog too),
                        // cm_destroy_id in IB_CM_SIDR_REQ_RCVD answers with cm_reject_sidr_req(IB_SIDR_REJECT).
                        metrics.decision("reject", handover == Consumers.Handover.BACKLOG
                                ? Decision.Drop.CONSUMER_BACKLOG.label() : "consumer-gone");
                        answerReject(frame, meta, port, localCommId, Decision.SIDR_REJECT, new byte[0], new byte[0]);
                        return d;
                    }
                    if (handover == Consumers.Handover.BACKLOG) {
                        // ucma_connect_event_handler: a listener whose backlog is full makes the handler fail with
                        // -ENOMEM, and the request is dropped without a REJ so that the peer retries.
                        metrics.drop(Decision.Drop.CONSUMER_BACKLOG.label());
                        metrics.decision("drop", "");
                        return d.droppedFor(Decision.Drop.CONSUMER_BACKLOG,
                                "consumer backlog full: the listener's consumer is not reading");
                    }
                    metrics.decision("reject", "consumer-gone");
                    answerReject(frame, meta, port, localCommId, Decision.REJ_CONSUMER_DEFINED,
                            new byte[0], new byte[0]);
                    return d;
                }
                metrics.decision("deliver", "");
                if (!meta.sidr()) {
                    sessions.acknowledge(localCommId); // the MRA, unless the consumer has answered already
                }
            }
            case REJECT -> {
                metrics.decision("reject", Integer.toString(d.rejectReason()));
                answerReject(frame, meta, port, localCommId, d.rejectReason(), new byte[0], new byte[0]);
            }
            case DROP -> {
                metrics.decision("drop", "");
                metrics.drop(d.drop() == null ? "unknown" : d.drop().label());
                ReqKey key = key(frame);
                if (key != null) {
                    seen.put(key, Answer.of(Decision.Outcome.DROP, port, localCommId));
                }
            }
        }
        return d;
    }

    /**
     * The drop reason of a request that found {@code --max-sessions} connections held
     * (drops_total{reason="sessions-full"}).
     */
    static final String SESSIONS_FULL = "sessions full: the daemon holds --max-sessions connections;"
            + " the requester's retry may find room";

    /** See {@link Consumers#holdDeliveries()}. */
    public void holdDeliveries() {
        consumers.holdDeliveries();
    }

    /** See {@link Consumers#releaseDeliveries()}. */
    public void releaseDeliveries() {
        consumers.releaseDeliveries();
    }

    /**
     * A delivered REQ's session ended: if the REQ came within the duplicate window, its retransmissions are answered
     * from here for a window more.
     */
    private void sessionForgotten(ReturnPath request, FrameSender port, int localCommId, long deliveredNanos) {
        if (System.nanoTime() - deliveredNanos < duplicateWindowNanos) {
            seen.put(key(request), Answer.of(Decision.Outcome.DELIVER, port, localCommId));
        }
    }

    private void consumerRejected(long traceId, int reason, byte[] ari, byte[] privateData) {
        Pending p = pending.asMap().remove(traceId);
        if (p == null) {
            Sessions.Unanswered u = sessions.rejectedByConsumer(traceId);
            if (u == null) {
                metrics.drop("reject-unknown-trace");
                return;
            }
            p = new Pending(u.request(), u.port(), u.localCommId(), null);
        }
        metrics.decision("reject", "consumer");
        if (p.sidr() != null) {
            // rdma_reject on a UD id: cma_send_sidr_rep(IB_SIDR_REJECT) with the consumer's private
            // data; a SIDR REP has no reason.
            sendSidrRep(p.request(), p.port(), p.sidr(), Decision.SIDR_REJECT, privateData, true);
            return;
        }
        answerRejectFrame(p.request(), p.port(), p.localCommId(), reason, ari, privateData, true);
    }

    private void answerReject(RoceFrame frame, PacketMeta meta, FrameSender port, int localCommId,
            int reason, byte[] ari, byte[] privateData) {
        if (meta.sidr()) {
            // A SIDR REQ is refused with a SIDR_REP carrying the status: the decision's (1 unsupported, 2 reject).
            sendSidrRep(ReturnPath.of(frame), port, (CmSidrReq) frame.mad().message(), reason, privateData, false);
            return;
        }
        answerRejectFrame(ReturnPath.of(frame), port, localCommId, reason, ari, privateData, false);
    }

    /** @param held a consumer's answer, held until the read it came in ends (the tap's leave with its batch anyway) */
    private void sendSidrRep(ReturnPath request, FrameSender port, CmSidrReq sidr, int status, byte[] privateData,
            boolean held) {
        byte[] pd = privateData.length > CmSidrRep.PRIVATE_DATA_SIZE
                ? java.util.Arrays.copyOf(privateData, CmSidrRep.PRIVATE_DATA_SIZE) : privateData;
        CmSidrRep rep = new CmSidrRep(sidr.requestId(), status & 0xff, 0, 0, 0, sidr.serviceId(), 0, Octets.zeros(0),
                Octets.of(pd));
        byte[] out = request.answer(rep);
        if (!limiter.allowReply(request.requester(), out.length)) {
            metrics.drop("rej-rate-limited");
        } else if (held) {
            consumerRejs.hold(port, out, "sidr-rep");
        } else {
            send(port, out, "sidr-rep");
        }
    }

    private void answerRejectFrame(ReturnPath request, FrameSender port, int localCommId, int reason, byte[] ari,
            byte[] privateData, boolean held) {
        byte[] a = ari.length == 0 ? NONE
                : ari.length > CmRej.ARI_SIZE ? java.util.Arrays.copyOf(ari, CmRej.ARI_SIZE) : ari;
        byte[] pd = privateData.length == 0 ? NONE
                : privateData.length > CmRej.PRIVATE_DATA_SIZE
                        ? java.util.Arrays.copyOf(privateData, CmRej.PRIVATE_DATA_SIZE) : privateData;
        byte[] out = request.answer(rej(localCommId, request.remoteCommId(), reason, a, pd));
        ReqKey key = key(request);
        if (key != null) {
            seen.put(key, new Answer(Decision.Outcome.REJECT, port, localCommId, reason, a, pd));
        }
        if (!limiter.allowReply(request.requester(), out.length)) {
            metrics.drop("rej-rate-limited");
        } else if (held) {
            consumerRejs.hold(port, out, "rej");
        } else {
            send(port, out, "REJ " + reason);
        }
    }

    private static CmRej rej(int localCommId, int remoteCommId, int reason, byte[] ari, byte[] privateData) {
        return new CmRej(localCommId, remoteCommId, 0, ari.length, reason & 0xffff, Octets.of(ari),
                Octets.of(privateData));
    }

    private void send(FrameSender port, byte[] frame, String what) {
        try {
            port.send(frame);
            metrics.sent(what.startsWith("REJ") ? "rej" : what.equals("MRA") ? "mra" : what.equals("sidr-rep")
                    ? "sidr-rep" : "repeat");
        } catch (IOException e) {
            metrics.drop("send-failed");
            log.warn("sending {} failed: {}", what, e.getMessage());
        }
    }

    private static ReqKey key(RoceFrame frame) {
        if (frame.mad().message() instanceof CmReq r) {
            return new ReqKey(Integer.toUnsignedLong(r.localCommId()), r.localCaGuid());
        }
        return null;
    }

    private static ReqKey key(ReturnPath request) {
        return request.req() ? new ReqKey(Integer.toUnsignedLong(request.remoteCommId()),
                request.remoteCaGuid()) : null;
    }

}
