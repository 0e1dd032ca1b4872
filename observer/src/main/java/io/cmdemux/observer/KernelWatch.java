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
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
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

    private final Supplier<HostState> host;
    private final Owners owners;
    private final boolean requesterHere;
    private final Map<String, Long> malformed = new ConcurrentHashMap<>();
    private volatile Correlator correlator;
    private volatile boolean stopping;

    /**
     * @param host the host's topology and RDMA state now (its listeners are ignored: the kernel's, from the
     *     nldev dump, are the ones that count)
     * @param requesterHere whether the requester's events are in the same stream (a lab recording), so that a
     *     request nobody answered can be told apart from one not settled yet
     */
    public KernelWatch(Supplier<HostState> host, Owners owners, boolean requesterHere) {
        this.host = host;
        this.owners = owners;
        this.requesterHere = requesterHere;
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
        for (String line = source.readLine(); line != null && !stopping; line = source.readLine()) {
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
            }
            settled(c.accept(e), obs, sink);
        }
        if (!stopping) {
            settled(c.finish(), obs, sink);
        }
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
        private final TraceInstance trace;
        private final NldevClient nldev;
        private final BufferedReader pipe;

        private LiveKernel(TraceInstance trace, NldevClient nldev, BufferedReader pipe) {
            this.trace = trace;
            this.nldev = nldev;
            this.pipe = pipe;
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
            trace.wakeReaders(why);
        }

        @Override
        public String readLine() throws IOException {
            return pipe.readLine();
        }

        @Override
        public NldevDump dump() throws IOException {
            return nldev.dump();
        }

        @Override
        public void close() throws IOException {
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
