package io.cmdemux.service.serve;

import io.cmdemux.ingress.wire.CmDrep;
import io.cmdemux.ingress.wire.CmDreq;
import io.cmdemux.ingress.wire.CmMessage;
import io.cmdemux.ingress.wire.CmMra;
import io.cmdemux.ingress.wire.CmRej;
import io.cmdemux.ingress.wire.CmRep;
import io.cmdemux.ingress.wire.CmReq;
import io.cmdemux.ingress.wire.CmRtu;
import io.cmdemux.ingress.wire.FrameResult;
import io.cmdemux.ingress.wire.Octets;
import io.cmdemux.ingress.wire.RejReason;
import io.cmdemux.ingress.wire.RoceDecoder;
import io.cmdemux.ingress.wire.RoceFrame;
import io.cmdemux.ingress.wire.RoceFrameBuilder;
import io.cmdemux.ingress.wire.RoceFrameView;
import io.cmdemux.netdev.MalformedException;
import io.cmdemux.service.control.Acceptance;
import io.cmdemux.service.control.CmEventInfo;
import io.cmdemux.service.control.RequestRefused;
import io.cmdemux.service.control.Wire;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The passive side of every connection the daemon has delivered: cm.c's states from REQ_RCVD to
 * TIMEWAIT, the comm IDs, the REP and DREQ retransmission timers and time-wait. Messages from the
 * wire are routed by our local comm ID (their remote comm ID); anything that matches no
 * connection is answered the way cm.c answers it, or counted and dropped.
 */
public final class Sessions implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Sessions.class);
    private static final int UDP_SOURCE_PORT = 0xc000;
    /** CMA_CM_MRA_SETTING: the service timeout of the MRA rdma_cm sends for a REQ it hands to its user. */
    static final int MRA_SERVICE_TIMEOUT = 24;
    private static final int INITIAL_CAPACITY = 1 << 16;

    /** The passive side's states in cm.c (enum ib_cm_state). */
    public enum State { MRA_REQ_SENT, REP_SENT, ESTABLISHED, DREQ_SENT, TIMEWAIT }

    /** Limits and timing. {@code maxTimeoutMillis} caps the CM timeouts a peer asks for (4.096 µs × 2^t). */
    public record Config(int maxSessions, long timeWaitMillis, long maxTimeoutMillis) {
        public static Config defaults() {
            return new Config(1 << 20, 1000, 60_000);
        }
    }

    private record RemoteKey(int remoteCommId, long remoteCaGuid) {}

    private final class Session {
        final int localCommId;
        final long traceId;
        final String owner;
        /** The REQ as it arrived: 300-odd bytes, where its decoded form would keep a kilobyte per unanswered request. */
        final byte[] reqRaw;
        final int reqInitiatorDepth;
        final int reqResponderResources;
        final int reqLocalQpn;
        final FrameSender port;
        final int remoteCommId;
        final RemoteKey remote;
        final long timeoutMillis;
        final int maxRetries;
        final long deliveredNanos = System.nanoTime();
        volatile State state = State.MRA_REQ_SENT;
        /** The REP or DREQ to repeat; null while the MRA is our answer (rebuilt from the REQ if it is needed again). */
        byte[] lastSent;
        int retriesLeft;
        ScheduledFuture<?> timer;

        Session(int localCommId, long traceId, String owner, RoceFrame req, byte[] reqRaw, FrameSender port) {
            this.localCommId = localCommId;
            this.traceId = traceId;
            this.owner = owner;
            this.reqRaw = reqRaw;
            this.port = port;
            CmReq r = (CmReq) req.mad().message();
            this.reqInitiatorDepth = r.initiatorDepth();
            this.reqResponderResources = r.responderResources();
            this.reqLocalQpn = r.localQpn();
            this.remoteCommId = r.localCommId();
            this.remote = new RemoteKey(r.localCommId(), r.localCaGuid());
            // cm_req_handler: timeout_ms from the requester's local CM response timeout, max_cm_retries from the REQ
            this.timeoutMillis = Math.max(1, Math.min(config.maxTimeoutMillis(), cmTimeoutMillis(r.localCmResponseTimeout())));
            this.maxRetries = r.maxCmRetries();
        }
    }

    private final Config config;
    private final Consumers consumers;
    private final Metrics metrics;
    private final long localCaGuid;
    private final int randomIdOperand = ThreadLocalRandom.current().nextInt();
    private final AtomicInteger nextCommId = new AtomicInteger();
    private final Map<Integer, Session> byLocal;
    private final Map<RemoteKey, Session> byRemote;
    private final Map<Long, Session> byTrace;
    private final ScheduledThreadPoolExecutor timers = newTimers();

    /**
     * Every REP arms a retry timer that its RTU cancels at once. Removed on cancel, a cancelled timer
     * costs nothing later; left in the queue, each would wake the timer thread at its deadline, one
     * wake-up per handshake.
     */
    private static ScheduledThreadPoolExecutor newTimers() {
        ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, r -> {
            Thread th = new Thread(r, "cmdemux-cm-timers");
            th.setDaemon(true);
            return th;
        });
        t.setRemoveOnCancelPolicy(true);
        return t;
    }

    public Sessions(Config config, Consumers consumers, Metrics metrics, long localCaGuid) {
        this.config = config;
        this.consumers = consumers;
        this.metrics = metrics;
        this.localCaGuid = localCaGuid;
        // Sized for a burst up front: growing a ConcurrentHashMap copies it on the tap thread (transfer).
        int initial = Math.min(config.maxSessions(), INITIAL_CAPACITY);
        this.byLocal = new ConcurrentHashMap<>(initial);
        this.byRemote = new ConcurrentHashMap<>(initial);
        this.byTrace = new ConcurrentHashMap<>(initial);
        metrics.gauge("sessions", byLocal::size);
        consumers.onAccept(new Consumers.AcceptHandler() {
            @Override
            public int accept(String owner, Acceptance a) throws RequestRefused {
                return Sessions.this.accept(owner, a);
            }

            @Override
            public void acceptsRead() {
                sendReps();
            }
        });
        consumers.onDisconnect(this::disconnect);
        consumers.onConsumerGone(this::consumerGone);
    }

    /** 4.096 µs × 2^t, as cm_convert_to_ms computes it (in whole milliseconds, at least 1). */
    static long cmTimeoutMillis(int t) {
        long ns = 4096L << Math.min(t, 31);
        return Math.max(1, ns / 1_000_000);
    }

    public int size() {
        return byLocal.size();
    }

    /**
     * A comm ID not in use, as cm_alloc_id makes them: the next of a cyclic counter XORed with a
     * random operand chosen once (cm.random_id_operand), never 0, never one a live connection has.
     * Consecutive IDs also fall in neighbouring buckets of the session tables, where random ones
     * cost a cache miss each once the tables are large.
     */
    public int newCommId() {
        while (true) {
            int id = nextCommId.getAndIncrement() ^ randomIdOperand;
            if (id != 0 && !byLocal.containsKey(id)) {
                return id;
            }
        }
    }

    /**
     * The MRA rdma_cm sends for a REQ it has handed to its listener (CMA_CM_MRA_SETTING), from
     * {@code localCommId}, ours for the connection.
     */
    public static byte[] mra(RoceFrame req, int localCommId) {
        CmReq r = (CmReq) req.mad().message();
        return RoceFrameBuilder.reply(req, new CmMra(localCommId, r.localCommId(), 0, MRA_SERVICE_TIMEOUT, Octets.zeros(0)), UDP_SOURCE_PORT, 0);
    }

    /** {@link #mra(RoceFrame, int)} for a REQ kept as its bytes, read in place. */
    static byte[] mra(RoceFrameView req, int localCommId) {
        return RoceFrameBuilder.reply(req, new CmMra(localCommId, req.requestId(), 0, MRA_SERVICE_TIMEOUT, Octets.zeros(0)), UDP_SOURCE_PORT, 0);
    }

    /** Records a REQ handed to its consumer; {@code raw} is {@code req}'s bytes. */
    public boolean delivered(long traceId, int localCommId, RoceFrame req, byte[] raw, FrameSender port, String owner) {
        if (byLocal.size() >= config.maxSessions()) {
            metrics.drop("sessions-full");
            return false;
        }
        Session s = new Session(localCommId, traceId, owner, req, raw, port);
        byLocal.put(localCommId, s);
        byRemote.put(s.remote, s);
        byTrace.put(traceId, s);
        return true;
    }

    /** A delivered request as the dispatcher needs it to send a REJ: its bytes, its port, our comm ID. */
    public record Unanswered(byte[] request, FrameSender port, int localCommId) {}

    /**
     * The consumer rejected the request (the dispatcher sends the REJ): forgets the connection.
     *
     * @return the request, or null when there is no such connection (any more)
     */
    public Unanswered rejectedByConsumer(long traceId) {
        Session s = byTrace.get(traceId);
        if (s == null) {
            return null;
        }
        synchronized (s) {
            cancel(s);
            remove(s);
        }
        return new Unanswered(s.reqRaw, s.port, s.localCommId);
    }

    /** Forgets a connection without a word on the wire: its request could not be delivered after all. */
    public void forget(long traceId) {
        Session s = byTrace.get(traceId);
        if (s != null) {
            remove(s);
        }
    }

    /**
     * Sends the MRA for a delivered request, as cma_ib_req_handler does once its listener took the
     * event, and only if the consumer has not answered it already (then the REP or REJ went first).
     */
    public void acknowledge(int localCommId, byte[] mra) {
        Session s = byLocal.get(localCommId);
        if (s == null) {
            return; // answered with REJECT and forgotten already
        }
        synchronized (s) {
            if (s.state == State.MRA_REQ_SENT) {
                send(s.port, mra, "mra");
            }
        }
    }

    /**
     * A duplicate of a REQ we still hold: cm_dup_req_handler repeats the MRA while the consumer has
     * not answered, and we repeat the REP once it has (the peer lost it). Returns whether it was ours.
     */
    public boolean duplicateReq(CmReq req) {
        Session s = byRemote.get(new RemoteKey(req.localCommId(), req.localCaGuid()));
        if (s == null) {
            return false;
        }
        synchronized (s) {
            if (s.state == State.MRA_REQ_SENT) {
                // Rebuilt rather than kept: a third of an unanswered request's heap, for a rare retransmission.
                send(s.port, mra(viewAgain(s.reqRaw), s.localCommId), "mra-repeat");
            } else if (s.state == State.REP_SENT && s.lastSent != null) {
                send(s.port, s.lastSent, "rep-repeat");
            }
        }
        return true;
    }

    // ---- from the consumer ----

    private int accept(String owner, Acceptance a) throws RequestRefused {
        Session s = byTrace.get(a.traceId());
        if (s == null || !s.owner.equals(owner)) {
            throw new RequestRefused(Wire.ENOENT, "trace " + Long.toUnsignedString(a.traceId()) + " is no connection of yours");
        }
        synchronized (s) {
            if (s.state != State.MRA_REQ_SENT) {
                throw new RequestRefused(Wire.EINVAL, "connection " + hex(s.localCommId) + " was answered already (" + s.state + ")");
            }
            CmRep rep = new CmRep(s.localCommId, s.remoteCommId, 0, a.qpn(), 0, a.startingPsn(), 0,
                    Math.min(a.responderResources(), s.reqInitiatorDepth), Math.min(a.initiatorDepth(), s.reqResponderResources),
                    0, 0, a.flowControl(), a.rnrRetryCount(), a.srq(), localCaGuid, Octets.of(a.privateData()));
            s.lastSent = RoceFrameBuilder.reply(viewAgain(s.reqRaw), rep, UDP_SOURCE_PORT, 0);
            s.state = State.REP_SENT;
            s.retriesLeft = s.maxRetries;
            reps.get().add(new Outgoing(s.port, s.lastSent));
            arm(s);
        }
        return s.localCommId;
    }

    private record Outgoing(FrameSender port, byte[] frame) {}

    /**
     * The REPs made on this thread (an event loop) for one read of a consumer's ACCEPTs, until the read
     * ends: a burst of ACCEPTs costs one sendmmsg, not a sendto each. The RTU can only follow the REP,
     * and its retry timer runs from the ACCEPT, a read's time earlier at most.
     */
    private final ThreadLocal<List<Outgoing>> reps = ThreadLocal.withInitial(ArrayList::new);

    private void sendReps() {
        List<Outgoing> out = reps.get();
        while (!out.isEmpty()) {
            // Nearly always one port; a frame per soft port otherwise, each port's in one call.
            FrameSender port = out.get(0).port();
            List<byte[]> frames = new ArrayList<>(out.size());
            out.removeIf(o -> o.port() == port && frames.add(o.frame()));
            try {
                port.send(frames);
                metrics.sent("rep", frames.size());
            } catch (IOException e) {
                metrics.drop("send-failed", frames.size());
                log.warn("sending {} REPs failed: {}", frames.size(), e.getMessage());
            }
        }
    }

    private void disconnect(String owner, int localCommId, byte[] privateData) throws RequestRefused {
        Session s = byLocal.get(localCommId);
        if (s == null || !s.owner.equals(owner)) {
            throw new RequestRefused(Wire.ENOENT, "connection " + hex(localCommId) + " is no connection of yours");
        }
        synchronized (s) {
            if (s.state != State.ESTABLISHED) {
                throw new RequestRefused(Wire.EINVAL, "connection " + hex(localCommId) + " is " + s.state + ", not established");
            }
            sendDreq(s, privateData);
        }
    }

    private void sendDreq(Session s, byte[] privateData) {
        CmDreq dreq = new CmDreq(s.localCommId, s.remoteCommId, s.reqLocalQpn, Octets.of(privateData));
        s.lastSent = RoceFrameBuilder.reply(viewAgain(s.reqRaw), dreq, UDP_SOURCE_PORT, 0);
        s.state = State.DREQ_SENT;
        s.retriesLeft = s.maxRetries;
        send(s.port, s.lastSent, "dreq");
        arm(s);
    }

    /** A consumer left: unanswered requests are rejected, established connections disconnected, on the wire. */
    private void consumerGone(String owner) {
        List<Session> mine = new ArrayList<>();
        for (Session s : byLocal.values()) {
            if (s.owner.equals(owner)) {
                mine.add(s);
            }
        }
        for (Session s : mine) {
            synchronized (s) {
                switch (s.state) {
                    case MRA_REQ_SENT, REP_SENT -> {
                        cancel(s);
                        sendRej(s, 28); // cm_destroy_id rejects what its user never answered with CONSUMER_DEFINED
                        remove(s);
                    }
                    case ESTABLISHED -> sendDreq(s, new byte[0]);
                    default -> {
                        // DREQ already out or in time-wait: the timers finish the job
                    }
                }
            }
        }
        if (!mine.isEmpty()) {
            metrics.consumerGone(mine.size());
        }
    }

    private void sendRej(Session s, int reason) {
        CmRej rej = new CmRej(s.localCommId, s.remoteCommId, s.state == State.REP_SENT ? 1 : 0, 0, reason, Octets.zeros(0), Octets.zeros(0));
        send(s.port, RoceFrameBuilder.reply(viewAgain(s.reqRaw), rej, UDP_SOURCE_PORT, 0), "rej");
    }

    // ---- from the wire ----

    /** RTU, DREQ, DREP, REJ, MRA, REP from a peer. */
    public void onWire(RoceFrame frame, FrameSender port) {
        CmMessage m = frame.mad().message();
        if (m instanceof CmRtu rtu) {
            Session s = match(rtu.remoteCommId(), rtu.localCommId());
            if (s == null) {
                metrics.drop("rtu-unknown");
                return;
            }
            synchronized (s) {
                if (s.state == State.REP_SENT) {
                    cancel(s);
                    s.state = State.ESTABLISHED;
                    s.lastSent = null;
                    event(s, CmEventInfo.ESTABLISHED, 0);
                }
            }
        } else if (m instanceof CmDreq dreq) {
            Session s = match(dreq.remoteCommId(), dreq.localCommId());
            CmDrep drep = new CmDrep(dreq.remoteCommId(), dreq.localCommId(), Octets.zeros(0));
            if (s == null) {
                // cm_dreq_handler: a DREQ for a connection we no longer know still gets its DREP (cm_issue_drep)
                metrics.drop("dreq-stale");
                send(port, RoceFrameBuilder.reply(frame, drep, UDP_SOURCE_PORT, 0), "drep");
                return;
            }
            synchronized (s) {
                send(port, RoceFrameBuilder.reply(frame, drep, UDP_SOURCE_PORT, 0), "drep");
                if (s.state == State.ESTABLISHED || s.state == State.DREQ_SENT || s.state == State.REP_SENT) {
                    cancel(s);
                    s.state = State.TIMEWAIT;
                    event(s, CmEventInfo.DISCONNECTED, 0);
                    timeWait(s);
                }
            }
        } else if (m instanceof CmDrep drep) {
            Session s = match(drep.remoteCommId(), drep.localCommId());
            if (s == null) {
                metrics.drop("drep-unknown");
                return;
            }
            synchronized (s) {
                if (s.state == State.DREQ_SENT) {
                    cancel(s);
                    s.state = State.TIMEWAIT;
                    event(s, CmEventInfo.DISCONNECTED, 0);
                    timeWait(s);
                }
            }
        } else if (m instanceof CmRej rej) {
            Session s = byLocal.get(rej.remoteCommId());
            if (s == null) {
                metrics.drop("rej-unknown");
                return;
            }
            synchronized (s) {
                cancel(s);
                event(s, CmEventInfo.REJECTED, rej.reason());
                remove(s);
            }
        } else if (m instanceof CmMra mra) {
            Session s = match(mra.remoteCommId(), mra.localCommId());
            if (s == null) {
                metrics.drop("mra-unknown");
                return;
            }
            synchronized (s) {
                if (s.state == State.REP_SENT) {
                    // The peer needs longer for the RTU: wait out its service timeout before resending.
                    cancel(s);
                    long wait = Math.min(config.maxTimeoutMillis(), cmTimeoutMillis(mra.serviceTimeout()));
                    s.timer = timers.schedule(() -> expired(s), wait + s.timeoutMillis, TimeUnit.MILLISECONDS);
                }
            }
        } else if (m instanceof CmRep rep) {
            // We never send REQs, so no REP can be ours: cm_rep_handler answers REJ INVALID_COMM_ID.
            metrics.drop("rep-unknown");
            CmRej rej = new CmRej(0, rep.localCommId(), 1, 0, RejReason.INVALID_COMM_ID.code(), Octets.zeros(0), Octets.zeros(0));
            send(port, RoceFrameBuilder.reply(frame, rej, UDP_SOURCE_PORT, 0), "rej");
        } else {
            metrics.drop("cm-unhandled");
        }
    }

    /** Our session for a message that names us as {@code ours} and the peer as {@code theirs}. */
    private Session match(int ours, int theirs) {
        Session s = byLocal.get(ours);
        return s != null && s.remoteCommId == theirs ? s : null;
    }

    // ---- timers ----

    private void arm(Session s) {
        cancel(s);
        s.timer = timers.schedule(() -> expired(s), s.timeoutMillis, TimeUnit.MILLISECONDS);
    }

    private void expired(Session s) {
        synchronized (s) {
            if (s.state != State.REP_SENT && s.state != State.DREQ_SENT) {
                return;
            }
            if (s.retriesLeft > 0) {
                s.retriesLeft--;
                send(s.port, s.lastSent, s.state == State.REP_SENT ? "rep-retry" : "dreq-retry");
                s.timer = timers.schedule(() -> expired(s), s.timeoutMillis, TimeUnit.MILLISECONDS);
                return;
            }
            if (s.state == State.REP_SENT) {
                // cm_process_send_error: the REP went unanswered through every retry; the peer is told with REJ TIMEOUT
                sendRej(s, RejReason.TIMEOUT.code());
                event(s, CmEventInfo.TIMEOUT, RejReason.TIMEOUT.code());
                remove(s);
            } else {
                s.state = State.TIMEWAIT;
                event(s, CmEventInfo.DISCONNECTED, RejReason.TIMEOUT.code());
                timeWait(s);
            }
        }
    }

    private void timeWait(Session s) {
        s.timer = timers.schedule(() -> {
            synchronized (s) {
                event(s, CmEventInfo.TIMEWAIT_EXIT, 0);
                remove(s);
            }
        }, config.timeWaitMillis(), TimeUnit.MILLISECONDS);
    }

    private static void cancel(Session s) {
        if (s.timer != null) {
            s.timer.cancel(false);
            s.timer = null;
        }
    }

    private void remove(Session s) {
        if (byLocal.remove(s.localCommId, s)) {
            forgotten.forgotten(s.remoteCommId, s.remote.remoteCaGuid(), s.reqRaw, s.port, s.localCommId, s.deliveredNanos);
        }
        byRemote.remove(s.remote, s);
        byTrace.remove(s.traceId, s);
    }

    /** Told of each connection as it is forgotten, whatever ended it. */
    @FunctionalInterface
    public interface Forgotten {
        /**
         * @param remoteCommId and {@code remoteCaGuid}: the REQ's local comm ID and CA GUID
         * @param request the REQ's bytes
         * @param deliveredNanos when the REQ was delivered (System.nanoTime)
         */
        void forgotten(int remoteCommId, long remoteCaGuid, byte[] request, FrameSender port, int localCommId, long deliveredNanos);
    }

    private volatile Forgotten forgotten = (remoteCommId, remoteCaGuid, request, port, localCommId, deliveredNanos) -> { };

    public void onForgotten(Forgotten handler) {
        this.forgotten = handler;
    }

    private void event(Session s, int event, int reason) {
        if (!consumers.notify(s.owner, new CmEventInfo(s.traceId, s.localCommId, event, reason))) {
            metrics.drop("event-consumer-gone");
        }
    }

    private void send(FrameSender port, byte[] frame, String what) {
        try {
            port.send(frame);
            metrics.sent(what);
        } catch (IOException e) {
            metrics.drop("send-failed");
            log.warn("sending {} failed: {}", what, e.getMessage());
        }
    }

    /**
     * A frame that was checked once already, read again in place to answer it: its answers need its
     * addresses, P_Key and transaction ID, not the records of all its fields.
     */
    static RoceFrameView viewAgain(byte[] raw) {
        try {
            return RoceFrameView.ethernet(raw, 0, raw.length);
        } catch (MalformedException e) {
            throw new IllegalStateException("a frame that was checked before fails now: " + e.getMessage(), e);
        }
    }

    /** A frame that was decoded once already, decoded again to build an answer to it. */
    static RoceFrame decodeAgain(byte[] raw) {
        FrameResult r = RoceDecoder.decodeEthernet(raw);
        if (r instanceof FrameResult.Decoded d) {
            return d.frame();
        }
        throw new IllegalStateException("a frame that decoded before does not decode now: " + r);
    }

    private static String hex(int id) {
        return String.format("0x%08x", id);
    }

    @Override
    public void close() {
        timers.shutdownNow();
    }
}
