package io.cmdemux.pathrecord;

import io.cmdemux.netdev.MalformedException;
import io.cmdemux.netdev.NlMessage;
import io.cmdemux.pathrecord.ls.IpResolver;
import io.cmdemux.pathrecord.ls.Ls;
import io.cmdemux.pathrecord.ls.LsCodec;
import io.cmdemux.pathrecord.ls.LsMessage;
import io.cmdemux.pathrecord.ls.LsTransport;
import io.cmdemux.pathrecord.ls.PathUse;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The RDMA_NL_LS responder: reads the kernel's RESOLVE and IP_RESOLVE requests from the transport
 * and answers each exactly once, within the kernel's timeout. One reader thread owns the transport's
 * receive side; answers are sent from whichever thread completes them. At start it sends
 * SET_TIMEOUT, so that the kernel waits as long as configured (sa_query.c ib_nl_handle_set_timeout).
 */
public final class Responder implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Responder.class);
    private static final int RECEIVE_POLL_MS = 200;
    private static final int SET_TIMEOUT_SEQ = 1;

    /** The state `serve` reports. */
    public enum State { STARTING, LISTENING, OFF, STOPPED }

    /** Counters for `path stats`, the status and the metrics. */
    public record Stats(State state, String stateDetail, long received, long ignoredNotKernel, long malformed,
            long answered, long answeredWithRecords, long errAnswers, long failAnswers, long deadlineErrs,
            long reusedSeq, long ipResolve, long kernelErrors, long inFlight, long p50Nanos, long p99Nanos) {}

    private final LsTransport transport;
    private final PathResolver resolver;
    private final IpResolver ipResolver;
    private final int kernelTimeoutMs;
    private final long answerWithinNanos;
    private final Map<Integer, InFlight> inFlight = new ConcurrentHashMap<>();
    private final ScheduledExecutorService deadlines;
    private final LatencyHistogram latency = new LatencyHistogram();
    private final AtomicLong received = new AtomicLong();
    private final AtomicLong notKernel = new AtomicLong();
    private final AtomicLong malformed = new AtomicLong();
    private final AtomicLong answered = new AtomicLong();
    private final AtomicLong withRecords = new AtomicLong();
    private final AtomicLong errAnswers = new AtomicLong();
    private final AtomicLong failAnswers = new AtomicLong();
    private final AtomicLong deadlineErrs = new AtomicLong();
    private final AtomicLong reusedSeq = new AtomicLong();
    private final AtomicLong ipResolve = new AtomicLong();
    private final AtomicLong kernelErrors = new AtomicLong();
    private final AtomicInteger warnedKernelError = new AtomicInteger();
    private volatile State state = State.STARTING;
    private volatile String stateDetail = "";
    private Thread reader;

    private static final class InFlight {
        final long t0 = System.nanoTime();
        final AtomicBoolean done = new AtomicBoolean();
        volatile boolean poisoned;
        volatile ScheduledFuture<?> deadline;
    }

    /**
     * @param kernelTimeoutMs the timeout sent in SET_TIMEOUT, 100..200000 ms; answers not ready by
     *     90% of it (at least 20 ms before it) go out as F_ERR, so that the kernel falls back at once
     */
    public Responder(LsTransport transport, PathResolver resolver, IpResolver ipResolver, int kernelTimeoutMs) {
        if (kernelTimeoutMs < Ls.TIMEOUT_MIN_MS || kernelTimeoutMs > Ls.TIMEOUT_MAX_MS) {
            throw new IllegalArgumentException("kernel timeout " + kernelTimeoutMs + " ms outside " + Ls.TIMEOUT_MIN_MS
                    + ".." + Ls.TIMEOUT_MAX_MS + " (sa_query.c IB_SA_LOCAL_SVC_TIMEOUT_MIN/MAX)");
        }
        this.transport = transport;
        this.resolver = resolver;
        this.ipResolver = ipResolver;
        this.kernelTimeoutMs = kernelTimeoutMs;
        long margin = Math.max(20, kernelTimeoutMs / 10);
        this.answerWithinNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(1, kernelTimeoutMs - margin));
        this.deadlines = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "cmdemux-ls-deadlines");
            t.setDaemon(true);
            return t;
        });
    }

    /** A responder that never runs, for a host whose kernel cannot give us the transport: it says why. */
    public static Responder off(String why, PathResolver resolver) {
        Responder r = new Responder(null, resolver, IpResolver.none(), Ls.TIMEOUT_DEFAULT_MS);
        r.state = State.OFF;
        r.stateDetail = why;
        r.deadlines.shutdown();
        return r;
    }

    /** Sends SET_TIMEOUT and starts the reader thread. */
    public void start() throws IOException {
        if (state == State.OFF) {
            return;
        }
        transport.send(LsCodec.encodeSetTimeout(SET_TIMEOUT_SEQ, transport.portId(), kernelTimeoutMs, true));
        reader = new Thread(this::readLoop, "cmdemux-ls-reader");
        reader.setDaemon(true);
        state = State.LISTENING;
        stateDetail = "answering RDMA_NL_LS queries; kernel timeout set to " + kernelTimeoutMs + " ms";
        reader.start();
    }

    public State state() {
        return state;
    }

    public String stateDetail() {
        return stateDetail;
    }

    public PathResolver resolver() {
        return resolver;
    }

    private void readLoop() {
        while (state == State.LISTENING) {
            LsTransport.Received r;
            try {
                r = transport.receive(RECEIVE_POLL_MS);
            } catch (IOException e) {
                if (state != State.LISTENING) {
                    return;
                }
                LOG.warn("RDMA_NL_LS receive failed: {}", e.getMessage());
                continue;
            }
            if (r != null) {
                onDatagram(r);
            }
        }
    }

    /** One datagram: visible for tests that drive the responder without a reader thread. */
    void onDatagram(LsTransport.Received r) {
        // Only the kernel asks: ibacm and other responders multicast their replies to the same group.
        if (r.senderPortId() != 0) {
            notKernel.incrementAndGet();
            return;
        }
        List<NlMessage> msgs;
        try {
            msgs = NlMessage.split(r.bytes());
        } catch (MalformedException e) {
            malformed.incrementAndGet();
            LOG.debug("dropped an RDMA_NL_LS datagram: {}", e.getMessage());
            return;
        }
        for (NlMessage m : msgs) {
            onMessage(m);
        }
    }

    private void onMessage(NlMessage m) {
        if (m.type() == NlMessage.NLMSG_ERROR) {
            onKernelAck(m);
            return;
        }
        if (m.type() < 16 || Ls.client(m.type()) != Ls.RDMA_NL_LS || (m.flags() & NlMessage.NLM_F_REQUEST) == 0) {
            return;
        }
        received.incrementAndGet();
        LsMessage msg;
        try {
            msg = LsCodec.decode(m);
        } catch (MalformedException e) {
            // acm_nl_process_invalid_request: an error reply, so that the kernel falls back at once.
            malformed.incrementAndGet();
            LOG.debug("RDMA_NL_LS request seq {} refused: {}", Integer.toUnsignedString(m.seq()), e.getMessage());
            sendQuietly(LsCodec.encodeError(m.type(), m.seq(), transport.portId()));
            errAnswers.incrementAndGet();
            return;
        }
        if (msg instanceof LsMessage.ResolveRequest req) {
            onResolve(req);
        } else if (msg instanceof LsMessage.IpResolveRequest ip) {
            onIpResolve(ip);
        }
    }

    private void onKernelAck(NlMessage m) {
        int err;
        try {
            err = m.error();
        } catch (MalformedException e) {
            return;
        }
        if (m.seq() == SET_TIMEOUT_SEQ) {
            if (err == 0) {
                LOG.debug("the kernel took the RDMA_NL_LS timeout of {} ms", kernelTimeoutMs);
            } else {
                LOG.warn("the kernel refused SET_TIMEOUT: error {} (replies need CAP_NET_ADMIN)", err);
                stateDetail = "the kernel refused SET_TIMEOUT (error " + err + "): replies need CAP_NET_ADMIN";
            }
            return;
        }
        if (err != 0) {
            kernelErrors.incrementAndGet();
            if (warnedKernelError.getAndIncrement() == 0) {
                LOG.warn("the kernel answered a reply with error {} (replies need CAP_NET_ADMIN in the host namespace)",
                        err);
            }
        }
    }

    private void onResolve(LsMessage.ResolveRequest req) {
        InFlight f = new InFlight();
        InFlight earlier = inFlight.putIfAbsent(req.seq(), f);
        if (earlier != null) {
            // sa_query.c matches replies to queries by seq alone, oldest first. Two queries with one seq could each
            // get the other's records, so both get F_ERR and the kernel asks the SA for both.
            reusedSeq.incrementAndGet();
            earlier.poisoned = true;
            LOG.warn("RDMA_NL_LS seq {} arrived again while in flight: both answered with F_ERR",
                    Integer.toUnsignedString(req.seq()));
            sendQuietly(LsCodec.encodeResolveError(req.seq(), transport.portId()));
            errAnswers.incrementAndGet();
            answered.incrementAndGet();
            return;
        }
        if (req.dgid() == null) {
            finish(req.seq(), f, LsCodec.encodeResolveError(req.seq(), transport.portId()), Kind.ERR);
            return;
        }
        PathUse use = req.use();
        PathQuery q = new PathQuery(req.device(), req.port(), req.sgid(), req.dgid(), req.pkey(), req.serviceId(),
                req.tclass(), req.qosClass(), use.reversible(), java.util.OptionalInt.empty());
        f.deadline = deadlines.schedule(
                () -> {
                    if (finish(req.seq(), f, LsCodec.encodeResolveError(req.seq(), transport.portId()), Kind.ERR)) {
                        deadlineErrs.incrementAndGet();
                        LOG.debug("RDMA_NL_LS seq {}: no answer within {} ms, F_ERR",
                                Integer.toUnsignedString(req.seq()), answerWithinNanos / 1_000_000);
                    }
                }, answerWithinNanos, TimeUnit.NANOSECONDS);
        java.util.concurrent.CompletableFuture<PathResolver.Result> answer;
        try {
            answer = resolver.resolve(q);
        } catch (RuntimeException e) {
            // A bug must cost one query its records (the kernel falls back), not the reader thread.
            LOG.warn("RDMA_NL_LS seq {}: {}", Integer.toUnsignedString(req.seq()), e.toString());
            finish(req.seq(), f, LsCodec.encodeResolveError(req.seq(), transport.portId()), Kind.ERR);
            return;
        }
        answer.whenComplete((res, e) -> {
            if (e != null) {
                LOG.warn("RDMA_NL_LS seq {}: {}", Integer.toUnsignedString(req.seq()), e.toString());
                finish(req.seq(), f, LsCodec.encodeResolveError(req.seq(), transport.portId()), Kind.ERR);
                return;
            }
            Answer a = res.answer();
            if (f.poisoned) {
                finish(req.seq(), f, LsCodec.encodeResolveError(req.seq(), transport.portId()), Kind.ERR);
                return;
            }
            switch (a.kind()) {
                case PATHS:
                    finish(req.seq(), f,
                            LsCodec.encodeResolveReply(req.seq(), transport.portId(), a.paths().records(use)),
                            Kind.RECORDS);
                    break;
                case FAIL:
                    finish(req.seq(), f, LsCodec.encodeResolveReply(req.seq(), transport.portId(), List.of()),
                            Kind.FAIL);
                    break;
                default:
                    finish(req.seq(), f, LsCodec.encodeResolveError(req.seq(), transport.portId()), Kind.ERR);
            }
            LOG.debug("RDMA_NL_LS seq {} {} -> {}: {} (rule {}, netns {}, source {})",
                    Integer.toUnsignedString(req.seq()), q.sgid(), q.dgid(), a.kind(), a.ruleName(),
                    a.origin() == null ? null : a.origin().netnsText(), res.source());
        });
    }

    private enum Kind { RECORDS, FAIL, ERR }

    /** Sends the one answer of an in-flight query; false when it was answered already. */
    private boolean finish(int seq, InFlight f, byte[] reply, Kind kind) {
        if (!f.done.compareAndSet(false, true)) {
            return false;
        }
        inFlight.remove(seq, f);
        ScheduledFuture<?> d = f.deadline;
        if (d != null) {
            d.cancel(false);
        }
        sendQuietly(reply);
        latency.record(System.nanoTime() - f.t0);
        answered.incrementAndGet();
        switch (kind) {
            case RECORDS:
                withRecords.incrementAndGet();
                break;
            case FAIL:
                failAnswers.incrementAndGet();
                break;
            default:
                errAnswers.incrementAndGet();
        }
        return true;
    }

    private void onIpResolve(LsMessage.IpResolveRequest ip) {
        ipResolve.incrementAndGet();
        byte[] reply = ipResolver.resolve(ip.ifindex(), ip.ip())
                .map(g -> LsCodec.encodeIpResolveReply(ip.seq(), transport.portId(), g))
                .orElseGet(() -> LsCodec.encodeIpResolveError(ip.seq(), transport.portId()));
        sendQuietly(reply);
        answered.incrementAndGet();
    }

    private void sendQuietly(byte[] reply) {
        try {
            transport.send(reply);
        } catch (IOException e) {
            LOG.warn("RDMA_NL_LS reply not sent: {}", e.getMessage());
        }
    }

    public Stats stats() {
        return new Stats(state, stateDetail, received.get(), notKernel.get(), malformed.get(), answered.get(),
                withRecords.get(), errAnswers.get(), failAnswers.get(), deadlineErrs.get(), reusedSeq.get(),
                ipResolve.get(), kernelErrors.get(), inFlight.size(), latency.percentileNanos(50),
                latency.percentileNanos(99));
    }

    @Override
    public void close() {
        if (state == State.OFF || state == State.STOPPED) {
            return;
        }
        state = State.STOPPED;
        if (reader != null) {
            try {
                reader.join(2L * RECEIVE_POLL_MS + 500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        deadlines.shutdownNow();
        transport.close();
    }
}
