package io.cmdemux.pathrecord.sa;

import io.cmdemux.netdev.MalformedException;
import io.cmdemux.pathrecord.PathQuery;
import io.cmdemux.pathrecord.PathRecord;
import io.cmdemux.pathrecord.source.NoPathException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An SA client on one local IB port: SubnAdmGet(PathRecord) through libibumad, as a management
 * class 0x03 version 2 agent. The kernel's MAD layer (or umad2sim under ibsim) does the retries
 * that umad_send asks for; one reader thread owns umad_recv, matches answers to queries by the
 * low 32 bits of the TID (the kernel rewrites the high half with the agent's hi_tid, ibsim bits
 * 63..48), and fails queries whose deadline passed. At most {@code maxOutstanding} queries are in
 * flight; more fail at once, so that a stuck SA cannot pile up work.
 */
public final class SaClient implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SaClient.class);
    // <errno.h>
    private static final int ETIMEDOUT = 110;
    private static final int EAGAIN = 11;
    private static final int RECV_POLL_MS = 100;
    private static final long TID_HIGH = 0x636d6478L << 32; // "cmdx"; the kernel overwrites it anyway

    /**
     * @param timeoutMs the MAD layer's wait for each try (umad_send timeout_ms)
     * @param retries further tries after the first (umad_send retries)
     * @param maxOutstanding queries in flight at once on this port
     */
    public record Settings(int timeoutMs, int retries, int maxOutstanding) {
        public Settings {
            if (timeoutMs < 1 || timeoutMs > 60_000) {
                throw new IllegalArgumentException("SA timeout " + timeoutMs + " ms outside 1..60000");
            }
            if (retries < 0 || retries > 20) {
                throw new IllegalArgumentException("SA retries " + retries + " outside 0..20");
            }
            if (maxOutstanding < 1 || maxOutstanding > 4096) {
                throw new IllegalArgumentException("SA outstanding-query limit " + maxOutstanding + " outside 1..4096");
            }
        }

        public static Settings defaults() {
            return new Settings(200, 2, 64);
        }

        /** How long a query may take in all before we give up on it ourselves. */
        long deadlineNanos() {
            return (long) timeoutMs * (retries + 1) * 1_000_000L + 50_000_000L;
        }
    }

    private record Pending(CompletableFuture<PathRecord> future, long deadline, PathQuery query) {}

    private final Umad.Agent agent;
    private final PortInfo port;
    private final Settings settings;
    private final Semaphore slots;
    private final Map<Integer, Pending> pending = new ConcurrentHashMap<>();
    private final AtomicInteger nextTid = new AtomicInteger(1);
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong answered = new AtomicLong();
    private final AtomicLong timedOut = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final Thread reader;
    private final ThreadLocal<Umad.Buffer> sendBuffer;
    private volatile boolean running = true;

    private SaClient(Umad.Agent agent, PortInfo port, Settings settings) {
        this.agent = agent;
        this.port = port;
        this.settings = settings;
        this.slots = new Semaphore(settings.maxOutstanding());
        this.sendBuffer = ThreadLocal.withInitial(agent::buffer);
        this.reader = new Thread(this::readLoop, "cmdemux-sa-" + port.device() + "-" + port.port());
        this.reader.setDaemon(true);
    }

    /** Null when SA queries can be made on this host; otherwise why not. */
    public static String unavailability() {
        return Umad.unavailability();
    }

    /** Opens the port and registers the SA agent; the port must be ACTIVE with an SM. */
    public static SaClient open(String device, int portNum, Settings settings) throws SaException {
        PortInfo info = Umad.port(device, portNum);
        if (info.linkLayer().equalsIgnoreCase("Ethernet")) {
            throw new SaException(device + " port " + portNum + " is " + info.linkLayer() + ": there is no SA to ask");
        }
        if (info.smLid() == 0) {
            throw new SaException(device + " port " + portNum + " knows no SM (sm_lid 0, state " + info.state()
                    + "): start a subnet manager");
        }
        Umad.Agent agent = Umad.Agent.open(device, portNum, SaMad.MGMT_CLASS_SUBN_ADM, SaMad.SA_CLASS_VERSION,
                "SubnAdm class 0x03 version 2");
        SaClient c = new SaClient(agent, info, settings);
        c.reader.start();
        LOG.debug("SA client on {}/{}: lid {} sm_lid {} sm_sl {} agent {}", device, portNum, info.baseLid(),
                info.smLid(), info.smSl(), agent.agentId());
        return c;
    }

    public PortInfo port() {
        return port;
    }

    /**
     * SubnAdmGet(PathRecord) for {@code q}; completes with the record, {@link NoPathException} or {@link SaException}.
     */
    public CompletableFuture<PathRecord> query(PathQuery q) {
        CompletableFuture<PathRecord> f = new CompletableFuture<>();
        if (!running) {
            f.completeExceptionally(
                    new SaException("SA client on " + port.device() + "/" + port.port() + " is closed"));
            return f;
        }
        if (!slots.tryAcquire()) {
            refused.incrementAndGet();
            f.completeExceptionally(new SaException(settings.maxOutstanding() + " SA queries are outstanding on "
                    + port.device() + "/" + port.port() + "; refusing more until they finish"));
            return f;
        }
        int low = nextTid.getAndIncrement();
        long tid = TID_HIGH | (low & 0xffffffffL);
        Pending p = new Pending(f, System.nanoTime() + settings.deadlineNanos(), q);
        pending.put(low, p);
        f.whenComplete((r, e) -> {
            pending.remove(low, p); // still there only when completed from outside the reader, e.g. cancelled
            slots.release();
        });
        byte[] mad = SaMad.pathRecordGet(q, tid);
        // umad_send copies the MAD into the kernel (write(2)) before it returns, so one buffer per thread will do.
        Umad.Buffer umad = sendBuffer.get();
        umad.address(port.smLid(), 1, port.smSl(), SaMad.QP1_QKEY, port.defaultPkeyIndex());
        umad.putMad(mad);
        int rc = agent.send(umad, settings.timeoutMs(), settings.retries());
        if (rc < 0) {
            pending.remove(low);
            f.completeExceptionally(new SaException("umad_send on " + port.device() + "/" + port.port() + ": " + rc));
            return f;
        }
        sent.incrementAndGet();
        return f;
    }

    private void readLoop() {
        Umad.Buffer buf = agent.buffer();
        byte[] mad = new byte[SaMad.MAD_SIZE];
        while (running) {
            int rc = agent.receive(buf, RECV_POLL_MS);
            if (rc >= 0) {
                int n = Math.min(buf.length(), SaMad.MAD_SIZE);
                Arrays.fill(mad, (byte) 0);
                buf.getMad(mad, Math.max(n, 0));
                handle(buf.status(), mad, n);
            } else if (rc != -ETIMEDOUT && rc != -EAGAIN && running) {
                LOG.warn("umad_recv on {}/{} failed: {}", port.device(), port.port(), rc);
                sleepQuietly(RECV_POLL_MS);
            }
            expire();
        }
    }

    private void handle(int status, byte[] mad, int n) {
        long tid = ByteBuffer.wrap(mad).getLong(SaMad.OFF_TID);
        Pending p = pending.remove((int) tid);
        if (p == null) {
            LOG.debug("SA answer with TID 0x{} matches no query (late or not ours)", Long.toHexString(tid));
            return;
        }
        if (status != 0) {
            // The MAD layer gave our request back: no answer after every retry.
            timedOut.incrementAndGet();
            p.future()
                    .completeExceptionally(new SaException("the SA did not answer on " + port.device() + "/"
                            + port.port() + " (status " + status + (status == ETIMEDOUT ? ", ETIMEDOUT" : "") + ")"));
            return;
        }
        try {
            SaMad.Response r = SaMad.read(mad, n);
            answered.incrementAndGet();
            if (r.ok()) {
                p.future().complete(r.record());
            } else if (r.saStatus() == SaMad.SA_STATUS_NO_RECORDS) {
                p.future().completeExceptionally(new NoPathException("the SA has no path " + describe(p.query())));
            } else {
                p.future()
                        .completeExceptionally(new SaException("the SA answered status 0x"
                                + Integer.toHexString(r.status()) + " for " + describe(p.query())));
            }
        } catch (MalformedException e) {
            p.future().completeExceptionally(new SaException("unreadable SA answer: " + e.getMessage()));
        }
    }

    private void expire() {
        long now = System.nanoTime();
        for (Iterator<Map.Entry<Integer, Pending>> it = pending.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Integer, Pending> e = it.next();
            if (now - e.getValue().deadline() > 0) {
                it.remove();
                timedOut.incrementAndGet();
                e.getValue().future().completeExceptionally(new SaException("no SA answer within "
                        + settings.deadlineNanos() / 1_000_000 + " ms for " + describe(e.getValue().query())));
            }
        }
    }

    private static String describe(PathQuery q) {
        return (q.sgid() == null ? "*" : q.sgid().toString()) + " -> " + q.dgid();
    }

    private static void sleepQuietly(int ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public long sent() {
        return sent.get();
    }

    public long answered() {
        return answered.get();
    }

    public long timedOut() {
        return timedOut.get();
    }

    public long refused() {
        return refused.get();
    }

    public int outstanding() {
        return pending.size();
    }

    @Override
    public void close() {
        if (!running) {
            return;
        }
        running = false;
        try {
            reader.join(2L * RECV_POLL_MS + 1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (Pending p : pending.values()) {
            p.future().completeExceptionally(new SaException("SA client closed"));
        }
        pending.clear();
        agent.close();
    }
}
