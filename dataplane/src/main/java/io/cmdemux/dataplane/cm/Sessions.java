package io.cmdemux.dataplane.cm;

import io.cmdemux.dataplane.consumer.Consumers;
import io.cmdemux.dataplane.metrics.Metrics;
import io.cmdemux.dataplane.reply.FrameSender;
import io.cmdemux.dataplane.reply.HeldFrames;
import io.cmdemux.dataplane.reply.ReturnPath;
import io.cmdemux.gid.Gid;
import io.cmdemux.ingress.resolve.Decision;
import io.cmdemux.ingress.wire.CmDrep;
import io.cmdemux.ingress.wire.CmDreq;
import io.cmdemux.ingress.wire.CmMessage;
import io.cmdemux.ingress.wire.CmMra;
import io.cmdemux.ingress.wire.CmRej;
import io.cmdemux.ingress.wire.CmRep;
import io.cmdemux.ingress.wire.CmReq;
import io.cmdemux.ingress.wire.CmRtu;
import io.cmdemux.ingress.wire.Octets;
import io.cmdemux.ingress.wire.RejReason;
import io.cmdemux.ingress.wire.RoceFrame;
import io.cmdemux.ingress.wire.RoceFrameBuilder;
import io.cmdemux.dataplane.consumer.Acceptance;
import io.cmdemux.dataplane.consumer.CmEvent;
import io.cmdemux.dataplane.consumer.Refusal;
import java.io.IOException;
import java.util.Arrays;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The passive side of every connection the daemon has delivered: cm.c's states from REQ_RCVD to
 * TIMEWAIT, the comm IDs, the REP and DREQ retransmission timers and time-wait. Messages from the
 * wire are routed by our local comm ID (their remote comm ID); anything that matches no
 * connection is answered the way cm.c answers it, or counted and dropped.
 *
 * <p>A connection is a slot of {@link SessionTable} and of the columns here: of its REQ it keeps
 * only the headers of its answers and the fields they take, and no object until it is answered, so
 * that a million unanswered requests are not a million objects for the collector to copy. One lock
 * guards them all; the tap thread, the consumers' event loops and the timer thread each hold it for
 * a lookup and a state change (sends from the tap thread are only queued).
 */
public final class Sessions implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Sessions.class);
    private static final int HEADERS = RoceFrameBuilder.MAX_REPLY_HEADERS;

    /** The passive side's states in cm.c (enum ib_cm_state). */
    public enum State { MRA_REQ_SENT, REP_SENT, ESTABLISHED, DREQ_SENT, TIMEWAIT }

    private static final State[] STATES = State.values();

    /** The most connections the tables can index. */
    public static final int MAX_SESSIONS = SessionTable.MAX_SLOTS;

    /** Limits and timing. {@code maxTimeoutMillis} caps the CM timeouts a peer asks for (4.096 µs × 2^t). */
    public record Config(int maxSessions, long timeWaitMillis, long maxTimeoutMillis) {
        public Config {
            if (maxSessions < 1 || maxSessions > MAX_SESSIONS) {
                throw new IllegalArgumentException("maxSessions " + maxSessions + ": expected 1 to " + MAX_SESSIONS);
            }
        }

        public static Config defaults() {
            return new Config(1 << 18, 1000, 60_000); // serve's default
        }
    }

    // A slot's flags in SessionTable: the state and the REQ's small fields the answers take.
    private static final int STATE_BITS = 0x7;
    private static final int MAX_RETRIES_SHIFT = 3; // 4 bits, the REQ's max_cm_retries
    private static final int RESPONSE_TIMEOUT_SHIFT = 7; // 5 bits, the REQ's local CM response timeout
    private static final int INITIATOR_DEPTH_SHIFT = 12; // 8 bits
    private static final int RESPONDER_RESOURCES_SHIFT = 20; // 8 bits

    /** What a connection keeps once it is answered: the REP or DREQ to repeat, its retries, its timer. */
    private static final class Answered {
        byte[] lastSent;
        int retriesLeft;
        ScheduledFuture<?> timer;
    }

    /** The fields of {@code 1 << SessionTable.CHUNK_SHIFT} slots. */
    private static final class Columns {
        static final int SLOTS = 1 << SessionTable.CHUNK_SHIFT;
        final long[] deliveredNanos = new long[SLOTS];
        final long[] transactionId = new long[SLOTS];
        /** The REQ's IP source as a GID, for the REJ limiter. */
        final long[] requesterHi = new long[SLOTS];
        final long[] requesterLo = new long[SLOTS];
        final int[] reqLocalQpn = new int[SLOTS];
        /** The headers of every answer, {@link #HEADERS} bytes a slot, of which {@link #headerLength} are used. */
        final byte[] headers = new byte[SLOTS * HEADERS];
        final byte[] headerLength = new byte[SLOTS];
        final String[] owner = new String[SLOTS];
        final FrameSender[] port = new FrameSender[SLOTS];
        final Answered[] answered = new Answered[SLOTS];
    }

    private final Config config;
    private final Consumers consumers;
    private final Metrics metrics;
    private final long localCaGuid;
    private final int randomIdOperand = ThreadLocalRandom.current().nextInt();
    private final AtomicLong issuedCommIds = new AtomicLong();
    private final Object lock = new Object();
    private final SessionTable table;
    /** The slots' other fields, a chunk of the table's slots each (all under lock). */
    private Columns[] columns = new Columns[0];
    private final ScheduledThreadPoolExecutor timers = newTimers();
    /**
     * The REPs made on an event loop for one read of a consumer's ACCEPTs, until the read ends: a burst of ACCEPTs
     * costs one sendmmsg, and none is sent holding the lock. The RTU can only follow the REP, and its retry timer
     * runs from the ACCEPT, a read's time earlier at most.
     */
    private final HeldFrames reps;

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
        this.reps = new HeldFrames(metrics);
        this.table = new SessionTable(config.maxSessions(), chunk -> {
            columns = Arrays.copyOf(columns, chunk + 1);
            columns[chunk] = new Columns();
        });
        metrics.gauge("sessions", this::size);
        consumers.onAccept(new Consumers.AcceptHandler() {
            @Override
            public int accept(String owner, Acceptance a) throws Refusal {
                return Sessions.this.accept(owner, a);
            }

            @Override
            public void acceptsRead() {
                reps.send();
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
        synchronized (lock) {
            return table.size();
        }
    }

    /**
     * A comm ID not in use, as cm_alloc_id makes them: the next of a cyclic counter XORed with a
     * random operand chosen once (cm.random_id_operand), never 0, never one a live connection has.
     */
    public int newCommId() {
        while (true) {
            long n = issuedCommIds.getAndIncrement();
            int id = (int) n ^ randomIdOperand;
            if (id == 0) {
                continue;
            }
            // Until the counter has gone round once, no ID was handed out twice: none can be in use.
            // Looking each new one up would cost a cache miss in a large index per request.
            if (n < 1L << 32) {
                return id;
            }
            synchronized (lock) {
                if (table.byLocal(id) == SessionTable.NONE) {
                    return id;
                }
            }
        }
    }

    /** Sets how many comm IDs have been handed out, for tests of the counter's second round. */
    void issuedCommIds(long n) {
        issuedCommIds.set(n);
    }

    /**
     * Touches the index entries that a batch's requests will read: the duplicate check of each REQ
     * (its comm ID and CA GUID in {@code remote} and {@code remoteGuids}), and where the next comm
     * IDs and the trace IDs from {@code firstTrace} on will be inserted. Each is a cache miss in an index of many
     * megabytes; read here, one after another with nothing waiting on them, they overlap, where handled frame by frame
     * each waited for its own (a fifth of the tap thread's time). No lock: a stale entry only costs the miss it was
     * meant to save, and the indexes are never replaced.
     */
    public long prefetch(int[] remote, long[] remoteGuids, int n, long firstTrace) {
        long sink = 0;
        long issued = issuedCommIds.get();
        for (int i = 0; i < n; i++) {
            sink += table.touchRemote(remote[i], remoteGuids[i]) + table.touchTrace(firstTrace + i)
                    + table.touchLocal((int) (issued + i) ^ randomIdOperand);
        }
        return sink;
    }

    /** Records a REQ handed to its consumer; false (counted) when {@code maxSessions} connections are held already. */
    public boolean delivered(long traceId, int localCommId, RoceFrame req, FrameSender port, String owner) {
        CmReq r = (CmReq) req.mad().message();
        int flags = Math.min(r.maxCmRetries(), 0xf) << MAX_RETRIES_SHIFT
                | Math.min(r.localCmResponseTimeout(), 0x1f) << RESPONSE_TIMEOUT_SHIFT
                | (r.initiatorDepth() & 0xff) << INITIATOR_DEPTH_SHIFT
                | (r.responderResources() & 0xff) << RESPONDER_RESOURCES_SHIFT
                | State.MRA_REQ_SENT.ordinal();
        synchronized (lock) {
            int s = table.add(localCommId, r.localCommId(), r.localCaGuid(), traceId, flags);
            if (s == SessionTable.NONE) {
                metrics.drop(Decision.Drop.SESSIONS_FULL.label());
                return false;
            }
            Columns c = columns(s);
            int i = at(s);
            c.deliveredNanos[i] = System.nanoTime();
            c.transactionId[i] = req.mad().header().transactionId();
            c.requesterHi[i] = req.l3().src().hi();
            c.requesterLo[i] = req.l3().src().lo();
            c.reqLocalQpn[i] = r.localQpn();
            c.headerLength[i] = (byte) RoceFrameBuilder.writeReplyHeaders(req, ReturnPath.UDP_SOURCE_PORT, 0,
                    c.headers, i * HEADERS);
            c.owner[i] = owner;
            c.port[i] = port;
            return true;
        }
    }

    /** A delivered request as the dispatcher needs it to send a REJ: how to answer it, its port, our comm ID. */
    public record Unanswered(ReturnPath request, FrameSender port, int localCommId) {}

    /**
     * The consumer rejected the request (the dispatcher sends the REJ): forgets the connection.
     *
     * @return the request, or null when there is no such connection (any more)
     */
    public Unanswered rejectedByConsumer(long traceId) {
        synchronized (lock) {
            int s = table.byTrace(traceId);
            if (s == SessionTable.NONE) {
                return null;
            }
            cancel(s);
            Unanswered u = new Unanswered(returnPath(s), port(s), table.localCommId(s));
            remove(s);
            return u;
        }
    }

    /**
     * Forgets a connection without a word on the wire: its request could not be delivered after all.
     *
     * @return false when it was gone already: its consumer left between the delivery and now, and that answered
     *     it on the wire (REJ 28)
     */
    public boolean forget(long traceId) {
        synchronized (lock) {
            int s = table.byTrace(traceId);
            if (s == SessionTable.NONE) {
                return false;
            }
            remove(s);
            return true;
        }
    }

    /**
     * Sends the MRA for a delivered request, as cma_ib_req_handler does once its listener took the
     * event, and only if the consumer has not answered it already (then the REP or REJ went first).
     */
    public void acknowledge(int localCommId) {
        synchronized (lock) {
            int s = table.byLocal(localCommId);
            // else answered with REJECT and forgotten already
            if (s != SessionTable.NONE && state(s) == State.MRA_REQ_SENT) {
                send(port(s), mra(s), "mra");
            }
        }
    }

    /**
     * A duplicate of a REQ we still hold: cm_dup_req_handler repeats the MRA while the consumer has
     * not answered, and we repeat the REP once it has (the peer lost it). Returns whether it was ours.
     */
    public boolean duplicateReq(CmReq req) {
        synchronized (lock) {
            int s = table.byRemote(req.localCommId(), req.localCaGuid());
            if (s == SessionTable.NONE) {
                return false;
            }
            State state = state(s);
            if (state == State.MRA_REQ_SENT) {
                // Rebuilt rather than kept: most unanswered requests never need it again.
                send(port(s), mra(s), "mra-repeat");
            } else if (state == State.REP_SENT && answered(s).lastSent != null) {
                send(port(s), answered(s).lastSent, "rep-repeat");
            }
            return true;
        }
    }

    // ---- from the consumer ----

    private int accept(String owner, Acceptance a) throws Refusal {
        synchronized (lock) {
            int s = table.byTrace(a.traceId());
            if (s == SessionTable.NONE || !owner(s).equals(owner)) {
                throw new Refusal(Refusal.Kind.NOT_YOURS, "trace " + Long.toUnsignedString(a.traceId())
                        + " is no connection of yours");
            }
            int localCommId = table.localCommId(s);
            if (state(s) != State.MRA_REQ_SENT) {
                throw new Refusal(Refusal.Kind.WRONG_STATE, "connection " + hex(localCommId) + " was answered already ("
                        + state(s) + ")");
            }
            int flags = table.flags(s);
            CmRep rep = new CmRep(localCommId, table.remoteCommId(s), 0, a.qpn(), 0, a.startingPsn(), 0,
                    Math.min(a.responderResources(), (flags >>> INITIATOR_DEPTH_SHIFT) & 0xff),
                    Math.min(a.initiatorDepth(), (flags >>> RESPONDER_RESOURCES_SHIFT) & 0xff),
                    0, 0, a.flowControl(), a.rnrRetryCount(), a.srq(), localCaGuid, Octets.of(a.privateData()));
            Answered x = new Answered();
            columns(s).answered[at(s)] = x;
            x.lastSent = answer(s, rep);
            state(s, State.REP_SENT);
            x.retriesLeft = maxRetries(s);
            reps.hold(port(s), x.lastSent, "rep");
            arm(s);
            return localCommId;
        }
    }

    private void disconnect(String owner, int localCommId, byte[] privateData) throws Refusal {
        synchronized (lock) {
            int s = table.byLocal(localCommId);
            if (s == SessionTable.NONE || !owner(s).equals(owner)) {
                throw new Refusal(Refusal.Kind.NOT_YOURS, "connection " + hex(localCommId)
                        + " is no connection of yours");
            }
            if (state(s) != State.ESTABLISHED) {
                throw new Refusal(Refusal.Kind.WRONG_STATE, "connection " + hex(localCommId) + " is " + state(s)
                        + ", not established");
            }
            sendDreq(s, privateData);
        }
    }

    private void sendDreq(int s, byte[] privateData) {
        Answered x = answered(s);
        x.lastSent = answer(s, new CmDreq(table.localCommId(s), table.remoteCommId(s), columns(s).reqLocalQpn[at(s)],
                Octets.of(privateData)));
        state(s, State.DREQ_SENT);
        x.retriesLeft = maxRetries(s);
        send(port(s), x.lastSent, "dreq");
        arm(s);
    }

    /** A consumer left: unanswered requests are rejected, established connections disconnected, on the wire. */
    private void consumerGone(String owner) {
        synchronized (lock) {
            int[] mine = new int[16];
            int n = 0;
            for (int s = 0; s < table.slots(); s++) {
                if (table.live(s) && owner(s).equals(owner)) {
                    if (n == mine.length) {
                        mine = Arrays.copyOf(mine, 2 * n);
                    }
                    mine[n++] = s;
                }
            }
            for (int i = 0; i < n; i++) {
                int s = mine[i];
                switch (state(s)) {
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
            if (n > 0) {
                metrics.consumerGone(n);
            }
        }
    }

    private void sendRej(int s, int reason) {
        CmRej rej = new CmRej(table.localCommId(s), table.remoteCommId(s),
                state(s) == State.REP_SENT ? 1 : 0, 0, reason, Octets.zeros(0), Octets.zeros(0));
        send(port(s), answer(s, rej), "rej");
    }

    // ---- from the wire ----

    /** RTU, DREQ, DREP, REJ, MRA, REP from a peer. */
    public void onWire(RoceFrame frame, FrameSender port) {
        CmMessage m = frame.mad().message();
        if (m instanceof CmRep rep) {
            // We never send REQs, so no REP can be ours: cm_rep_handler answers REJ INVALID_COMM_ID.
            metrics.drop("rep-unknown");
            CmRej rej = new CmRej(0, rep.localCommId(), 1, 0, RejReason.INVALID_COMM_ID.code(), Octets.zeros(0),
                    Octets.zeros(0));
            send(port, RoceFrameBuilder.reply(frame, rej, ReturnPath.UDP_SOURCE_PORT, 0), "rej");
            return;
        }
        synchronized (lock) {
            if (m instanceof CmRtu rtu) {
                int s = match(rtu.remoteCommId(), rtu.localCommId());
                if (s == SessionTable.NONE) {
                    metrics.drop("rtu-unknown");
                } else if (state(s) == State.REP_SENT) {
                    cancel(s);
                    state(s, State.ESTABLISHED);
                    answered(s).lastSent = null;
                    event(s, CmEvent.Kind.ESTABLISHED, 0);
                }
            } else if (m instanceof CmDreq dreq) {
                int s = match(dreq.remoteCommId(), dreq.localCommId());
                // cm_dreq_handler: a DREQ for a connection we no longer know still gets its DREP (cm_issue_drep)
                CmDrep drep = new CmDrep(dreq.remoteCommId(), dreq.localCommId(), Octets.zeros(0));
                send(port, RoceFrameBuilder.reply(frame, drep, ReturnPath.UDP_SOURCE_PORT, 0), "drep");
                if (s == SessionTable.NONE) {
                    metrics.drop("dreq-stale");
                } else if (state(s) == State.ESTABLISHED || state(s) == State.DREQ_SENT || state(s) == State.REP_SENT) {
                    cancel(s);
                    timeWait(s, 0);
                }
            } else if (m instanceof CmDrep drep) {
                int s = match(drep.remoteCommId(), drep.localCommId());
                if (s == SessionTable.NONE) {
                    metrics.drop("drep-unknown");
                } else if (state(s) == State.DREQ_SENT) {
                    cancel(s);
                    timeWait(s, 0);
                }
            } else if (m instanceof CmRej rej) {
                int s = table.byLocal(rej.remoteCommId());
                if (s == SessionTable.NONE) {
                    metrics.drop("rej-unknown");
                } else {
                    cancel(s);
                    event(s, CmEvent.Kind.REJECTED, rej.reason());
                    remove(s);
                }
            } else if (m instanceof CmMra mra) {
                int s = match(mra.remoteCommId(), mra.localCommId());
                if (s == SessionTable.NONE) {
                    metrics.drop("mra-unknown");
                } else if (state(s) == State.REP_SENT) {
                    // The peer needs longer for the RTU: wait out its service timeout before resending.
                    cancel(s);
                    long wait = Math.min(config.maxTimeoutMillis(), cmTimeoutMillis(mra.serviceTimeout()));
                    schedule(s, wait + timeoutMillis(s), this::expired);
                }
            } else {
                metrics.drop("cm-unhandled");
            }
        }
    }

    /** Our connection for a message that names us as {@code ours} and the peer as {@code theirs}. */
    private int match(int ours, int theirs) {
        int s = table.byLocal(ours);
        return s != SessionTable.NONE && table.remoteCommId(s) == theirs ? s : SessionTable.NONE;
    }

    // ---- timers ----

    /** What a timer does to its connection, with the lock held, if the connection is still there. */
    @FunctionalInterface
    private interface Expiry {
        void run(int slot);
    }

    /**
     * Runs {@code expiry} on {@code s} after {@code millis}, unless the connection has gone by then: a
     * slot may hold another connection later, but never one with the same trace ID.
     */
    private void schedule(int s, long millis, Expiry expiry) {
        long trace = table.traceId(s);
        answered(s).timer = timers.schedule(() -> {
            synchronized (lock) {
                if (table.live(s) && table.traceId(s) == trace) {
                    expiry.run(s);
                }
            }
        }, millis, TimeUnit.MILLISECONDS);
    }

    private void arm(int s) {
        cancel(s);
        schedule(s, timeoutMillis(s), this::expired);
    }

    private void expired(int s) {
        State state = state(s);
        if (state != State.REP_SENT && state != State.DREQ_SENT) {
            return;
        }
        Answered x = answered(s);
        if (x.retriesLeft > 0) {
            x.retriesLeft--;
            send(port(s), x.lastSent, state == State.REP_SENT ? "rep-retry" : "dreq-retry");
            schedule(s, timeoutMillis(s), this::expired);
            return;
        }
        if (state == State.REP_SENT) {
            // cm_process_send_error: the REP went unanswered through every retry; the peer is told with REJ TIMEOUT
            sendRej(s, RejReason.TIMEOUT.code());
            event(s, CmEvent.Kind.TIMEOUT, RejReason.TIMEOUT.code());
            remove(s);
        } else {
            timeWait(s, RejReason.TIMEOUT.code());
        }
    }

    /**
     * The connection is disconnected ({@code reason} 0, or why not cleanly) and waits out
     * time-wait before it is forgotten.
     */
    private void timeWait(int s, int reason) {
        state(s, State.TIMEWAIT);
        event(s, CmEvent.Kind.DISCONNECTED, reason);
        schedule(s, config.timeWaitMillis(), slot -> {
            event(slot, CmEvent.Kind.TIMEWAIT_EXIT, 0);
            remove(slot);
        });
    }

    private void cancel(int s) {
        Answered x = answered(s);
        if (x != null && x.timer != null) {
            x.timer.cancel(false);
            x.timer = null;
        }
    }

    private void remove(int s) {
        Columns c = columns(s);
        int i = at(s);
        forgotten.forgotten(returnPath(s), c.port[i], table.localCommId(s), c.deliveredNanos[i]);
        c.owner[i] = null;
        c.port[i] = null;
        c.answered[i] = null;
        table.remove(s);
    }

    // ---- a slot's fields ----

    private Columns columns(int s) {
        return columns[s >>> SessionTable.CHUNK_SHIFT];
    }

    private static int at(int s) {
        return s & (Columns.SLOTS - 1);
    }

    private String owner(int s) {
        return columns(s).owner[at(s)];
    }

    private FrameSender port(int s) {
        return columns(s).port[at(s)];
    }

    private Answered answered(int s) {
        return columns(s).answered[at(s)];
    }

    private State state(int s) {
        return STATES[table.flags(s) & STATE_BITS];
    }

    private void state(int s, State state) {
        table.flags(s, table.flags(s) & ~STATE_BITS | state.ordinal());
    }

    private int maxRetries(int s) {
        return (table.flags(s) >>> MAX_RETRIES_SHIFT) & 0xf;
    }

    /** cm_req_handler: timeout_ms from the requester's local CM response timeout, capped by the config. */
    private long timeoutMillis(int s) {
        int t = (table.flags(s) >>> RESPONSE_TIMEOUT_SHIFT) & 0x1f;
        return Math.max(1, Math.min(config.maxTimeoutMillis(), cmTimeoutMillis(t)));
    }

    /** The frame that answers the connection's REQ with {@code message}. */
    private byte[] answer(int s, CmMessage message) {
        Columns c = columns(s);
        int i = at(s);
        return RoceFrameBuilder.reply(c.headers, i * HEADERS, c.headerLength[i], message, c.transactionId[i]);
    }

    /** The MRA rdma_cm sends for a REQ it has handed to its listener (CMA_CM_MRA_SETTING). */
    private byte[] mra(int s) {
        return answer(s, ReturnPath.mra(table.localCommId(s), table.remoteCommId(s)));
    }

    private ReturnPath returnPath(int s) {
        Columns c = columns(s);
        int i = at(s);
        return new ReturnPath(Arrays.copyOfRange(c.headers, i * HEADERS, i * HEADERS + c.headerLength[i]),
                c.transactionId[i], new Gid(c.requesterHi[i], c.requesterLo[i]), true, table.remoteCommId(s),
                table.remoteCaGuid(s));
    }

    /** Told of each connection as it is forgotten, whatever ended it. */
    @FunctionalInterface
    public interface Forgotten {
        /**
         * @param request how to answer the REQ, and its comm ID and CA GUID
         * @param deliveredNanos when the REQ was delivered (System.nanoTime)
         */
        void forgotten(ReturnPath request, FrameSender port, int localCommId, long deliveredNanos);
    }

    private volatile Forgotten forgotten = (request, port, localCommId, deliveredNanos) -> { };

    public void onForgotten(Forgotten handler) {
        this.forgotten = handler;
    }

    private void event(int s, CmEvent.Kind event, int reason) {
        if (!consumers.notify(owner(s), new CmEvent(table.traceId(s), table.localCommId(s), event, reason))) {
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

    private static String hex(int id) {
        return String.format("0x%08x", id);
    }

    @Override
    public void close() {
        timers.shutdownNow();
    }
}
