package io.cmdemux.observer;

import io.cmdemux.ingress.resolve.Decision;
import io.cmdemux.ingress.resolve.HostState;
import io.cmdemux.namespaces.NetnsDiscovery;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.NetnsState;
import io.cmdemux.observer.nldev.CmIdEntry;
import io.cmdemux.observer.nldev.NldevClient;
import io.cmdemux.observer.nldev.NldevDump;
import io.cmdemux.observer.trace.KernelEvent;
import io.cmdemux.observer.trace.LostEvents;
import io.cmdemux.observer.trace.MalformedTraceLineException;
import io.cmdemux.observer.trace.TraceLineParser;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The observer's loop, shared by `cmdemux watch` and `cmdemux serve`: reads the kernel's CM events, settles each
 * request the kernel received, names the listener and namespace it went to from the nldev dumps, asks cmdemux's
 * kernel mode about the same request on the host's state of that moment, and hands each {@link Verdict} on.
 * A line it cannot read is a counted skip, named by its reason; nothing in the stream stops it.
 */
public final class KernelWatch {
    /** One request the kernel received, what cmdemux would have done, and whether the two agree. */
    public record Verdict(Observation observation, HostState state, Decision prediction, boolean agree) {
        /** Whether there was anything to compare (the kprobe saw the request, so its fields are known). */
        public boolean compared() {
            return prediction != null;
        }
    }

    /** Where the loop's input comes from. */
    public interface Source extends AutoCloseable {
        /** The next trace line, blocking; null at the end. */
        String readLine() throws IOException;

        /**
         * The next trace line, waiting at most {@code waitMillis}: "" when none came in that time (a trace line is
         * never empty), null at the end. A recording has no wait, so by default this is {@link #readLine}.
         */
        default String poll(long waitMillis) throws IOException {
            return readLine();
        }

        /** The trace clock now, in ns; empty for a recording, whose only time is its events'. */
        default OptionalLong now() {
            return OptionalLong.empty();
        }

        /** The RDMA devices' cm_ids now. */
        NldevDump dump() throws IOException;

        @Override
        void close() throws IOException;
    }

    /** Where the loop's output goes. */
    public interface Sink {
        void verdict(Verdict v);

        /** The kernel's ring was full: {@code e.count()} events are missing, requests among them perhaps. */
        default void lost(LostEvents e) {}

        /** The first skip of each reason (the count of every reason is in {@link #skips()}). */
        default void skipping(String reason) {}
    }

    /** Who owns each cm_id: a pid's namespace, taken when its cm_id is first seen, before the process can exit. */
    public interface Owners {
        void saw(NldevDump dump);

        /** The namespace of the process, or null when it was gone before it was seen. */
        NetnsId of(int pid);
    }

    /**
     * rdma_cm's own response timeout (CMA_CM_RESPONSE_TIMEOUT 20: 4.096 us * 2^20, 4.3 s): a requester using
     * rdma_cm retries or gives up after it, so a request still unanswered then was met with silence.
     */
    public static final Duration DEFAULT_SILENCE = Duration.ofSeconds(5);
    /** How long settled requests are kept, so that retries of them are not counted again. */
    static final long RETAIN_NANOS = Duration.ofSeconds(60).toNanos();
    private static final long TICK_MILLIS = 500;

    private final Supplier<HostState> host;
    private final Owners owners;
    private final boolean requesterHere;
    private final long silenceNanos;
    private final Map<String, Long> malformed = new ConcurrentHashMap<>();
    private volatile Correlator correlator;
    private volatile boolean stopping;

    private KernelWatch(Supplier<HostState> host, Owners owners, boolean requesterHere, long silenceNanos) {
        this.host = host;
        this.owners = owners;
        this.requesterHere = requesterHere;
        this.silenceNanos = silenceNanos;
    }

    /**
     * The live kernel's watch: a request is silence once {@code silenceAfter} has passed without an answer, and
     * what is settled is forgotten after a minute.
     *
     * @param host the host's topology and RDMA state now (its listeners are ignored: the kernel's, from the
     *     nldev dump, are the ones that count)
     */
    public static KernelWatch live(Supplier<HostState> host, Owners owners, Duration silenceAfter) {
        if (silenceAfter.isNegative() || silenceAfter.isZero()) {
            throw new IllegalArgumentException("the silence timeout must be positive, not " + silenceAfter);
        }
        return new KernelWatch(host, owners, false, silenceAfter.toNanos());
    }

    /**
     * A lab recording's watch: the requester's events are in the same stream, and a request nobody answered by
     * the end of the recording was met with silence.
     */
    public static KernelWatch recording(Supplier<HostState> host, Owners owners) {
        return new KernelWatch(host, owners, true, 0);
    }

    /** Every skip so far, by reason: malformed lines, and events the correlator could not place. */
    public Map<String, Long> skips() {
        Map<String, Long> all = new TreeMap<>(malformed);
        Correlator c = correlator;
        if (c != null) {
            c.skips().forEach((why, n) -> all.merge(why, n, Long::sum));
        }
        return all;
    }

    /** Events the kernel said it lost, its ring being full, so far. */
    public long lostEvents() {
        Correlator c = correlator;
        return c == null ? 0 : c.lostEvents();
    }

    /** Makes {@link #run} return at the next line it reads (the caller wakes a blocked reader). */
    public void stop() {
        stopping = true;
    }

    /**
     * Stops a {@link #run} on the live kernel in thread {@code reader}, and waits for it (at most 5 s): the reader
     * must close trace_pipe before the instance can be removed (EBUSY otherwise).
     */
    public void stop(LiveKernel kernel, Thread reader, String why) {
        stop();
        kernel.wake(why);
        try {
            reader.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Reads until the source ends or {@link #stop()}. */
    public void run(Source source, RejectReasons reasons, Sink sink) throws IOException {
        Correlator c = new Correlator(reasons, requesterHere);
        correlator = c;
        NldevDump first = source.dump();
        owners.saw(first);
        Observations obs = new Observations(first, () -> {
            try {
                NldevDump d = source.dump();
                owners.saw(d);
                return d;
            } catch (IOException e) {
                return null;
            }
        }, pid -> Optional.ofNullable(owners.of(pid)).map(id -> ref(host.get(), id)));
        TraceLineParser parser = new TraceLineParser();
        // Live, time is the events' own while they flow, and the trace clock when none came for a tick: then
        // everything read so far has been handled, so nothing in flight can settle a request declared silent.
        long last = Long.MIN_VALUE;
        long expired = Long.MIN_VALUE;
        for (String line = next(source); line != null && !stopping; line = next(source)) {
            if (silenceNanos > 0) {
                OptionalLong idle = line.isEmpty() ? source.now() : OptionalLong.empty();
                long now = idle.isPresent() ? Math.max(last, idle.getAsLong()) : last;
                if (now != Long.MIN_VALUE && (expired == Long.MIN_VALUE || now - expired >= TICK_MILLIS * 1_000_000)) {
                    expired = now;
                    settled(c.expire(now, silenceNanos, Math.max(RETAIN_NANOS, 2 * silenceNanos)), obs, sink);
                }
            }
            if (line.isEmpty()) {
                continue;
            }
            KernelEvent e;
            try {
                e = parser.parse(line);
            } catch (MalformedTraceLineException ex) {
                skip(ex.reason(), sink);
                continue;
            }
            if (e == null) {
                continue;
            }
            if (e instanceof LostEvents lost) {
                sink.lost(lost);
            } else {
                last = Math.max(last, e.header().timestampNanos());
            }
            settled(c.accept(e), obs, sink);
        }
        if (!stopping && requesterHere) {
            settled(c.finish(), obs, sink);
        }
    }

    private String next(Source source) throws IOException {
        return silenceNanos > 0 ? source.poll(TICK_MILLIS) : source.readLine();
    }

    private void settled(List<KernelRequest> requests, Observations obs, Sink sink) {
        for (KernelRequest r : requests) {
            Observation ob = obs.of(r);
            HostState base = host.get();
            HostState now = new HostState(base.topology(), base.rdma(), Prediction.listeners(obs.dump(), owners::of));
            Decision d = Prediction.predict(now, r);
            sink.verdict(new Verdict(ob, now, d, d != null && Prediction.agrees(now, ob, d)));
        }
    }

    private void skip(String reason, Sink sink) {
        if (malformed.merge(reason, 1L, Long::sum) == 1) {
            sink.skipping(reason);
        }
    }

    private static NetnsRef ref(HostState state, NetnsId id) {
        NetnsState ns = state.topology().namespace(id);
        return new NetnsRef(id.inode(), ns == null ? List.of() : List.of(Prediction.name(ns)));
    }

    /** The live kernel's owners: /proc/PID/ns/net, read as soon as a dump lists the pid. */
    public static Owners procOwners() {
        Map<Integer, NetnsId> byPid = new ConcurrentHashMap<>();
        return new Owners() {
            @Override
            public void saw(NldevDump dump) {
                if (dump == null) {
                    return;
                }
                for (CmIdEntry c : dump.cmIds()) {
                    if (c.pid() != 0 && !byPid.containsKey(c.pid())) {
                        try {
                            byPid.put(c.pid(), NetnsDiscovery.idOf(Path.of("/proc", Integer.toString(c.pid()),
                                    "ns", "net")));
                        } catch (IOException e) {
                            // gone already: its requests have no namespace to name
                        }
                    }
                }
            }

            @Override
            public NetnsId of(int pid) {
                return byPid.get(pid);
            }
        };
    }

    /**
     * The live kernel: our tracefs instance (ib_cm and rdma_cm events, and the kprobe when given) and an
     * NETLINK_RDMA socket. Closing it removes the instance and the kprobe.
     */
    public static final class LiveKernel implements Source {
        /** The reader's last word: the pipe ended, or failed (then {@link #failure} says how). */
        private static final String END = new String("end of trace_pipe");

        private final TraceInstance trace;
        private final NldevClient nldev;
        private final BufferedReader pipe;
        // A thread of its own reads trace_pipe, which cannot be polled from Java, so that the loop can tell an
        // idle kernel from a slow one and declare silence on time.
        private final BlockingQueue<String> lines = new ArrayBlockingQueue<>(8192);
        private final Thread reader;
        private volatile boolean closing;
        private volatile IOException failure;

        private LiveKernel(TraceInstance trace, NldevClient nldev, BufferedReader pipe) {
            this.trace = trace;
            this.nldev = nldev;
            this.pipe = pipe;
            this.reader = new Thread(this::pump, "cmdemux-trace-pipe");
            reader.setDaemon(true);
            reader.start();
        }

        private void pump() {
            try {
                for (String line = pipe.readLine(); line != null; line = pipe.readLine()) {
                    // A full queue holds the reader back; the kernel's ring then fills and says what it lost.
                    while (!lines.offer(line, 100, TimeUnit.MILLISECONDS)) {
                        if (closing) {
                            return;
                        }
                    }
                    if (closing) {
                        return; // after the wake-up line: trace_pipe must be closed before the instance can go
                    }
                }
            } catch (IOException e) {
                failure = e;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            while (!closing) {
                try {
                    if (lines.offer(END, 100, TimeUnit.MILLISECONDS)) {
                        return;
                    }
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        /** @param probe the kprobe on the REQ handler (ReqProbe.fromBtf), or null for the tracepoints alone */
        public static LiveKernel open(ReqProbe probe) throws IOException {
            TraceInstance t = TraceInstance.start(TraceInstance.TRACEFS, TraceInstance.NAME,
                    List.of(FeatureCheck.IB_CM_EVENTS, FeatureCheck.RDMA_CM_EVENTS), probe);
            NldevClient nl = null;
            try {
                nl = NldevClient.open();
                return new LiveKernel(t, nl, t.pipe());
            } catch (IOException | RuntimeException e) {
                if (nl != null) {
                    nl.close();
                }
                t.close();
                throw e;
            }
        }

        /** icm_send_rej's reasons by name, from the running kernel's own format file. */
        public RejectReasons rejectReasons() throws IOException {
            return RejectReasons.fromFormat(Files.readString(
                    trace.format(FeatureCheck.IB_CM_EVENTS, "icm_send_rej"), StandardCharsets.US_ASCII));
        }

        public Path directory() {
            return trace.directory();
        }

        /** Wakes the reader blocked in trace_pipe, so that it sees a {@link KernelWatch#stop()}. */
        public void wake(String why) {
            closing = true;
            trace.wakeReaders(why);
        }

        @Override
        public String readLine() throws IOException {
            try {
                return ended(lines.take());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }

        @Override
        public String poll(long waitMillis) throws IOException {
            try {
                String line = lines.poll(waitMillis, TimeUnit.MILLISECONDS);
                return line == null ? "" : ended(line);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }

        private String ended(String line) throws IOException {
            if (line != END) {
                return line;
            }
            lines.offer(END); // for a later call
            if (failure != null) {
                throw failure;
            }
            return null;
        }

        /** Our instance's trace_clock is mono, CLOCK_MONOTONIC, which System.nanoTime reads on Linux. */
        @Override
        public OptionalLong now() {
            return OptionalLong.of(System.nanoTime());
        }

        @Override
        public NldevDump dump() throws IOException {
            return nldev.dump();
        }

        @Override
        public void close() throws IOException {
            if (!closing) {
                wake("cmdemux: closing");
            }
            try {
                reader.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            // trace_pipe first: tracefs refuses to remove an instance whose pipe is open (EBUSY).
            try {
                pipe.close();
            } finally {
                nldev.close();
                trace.close();
            }
        }
    }
}
