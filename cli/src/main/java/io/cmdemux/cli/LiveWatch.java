package io.cmdemux.cli;

import io.cmdemux.gid.Gid;
import io.cmdemux.ingress.resolve.Decision;
import io.cmdemux.ingress.resolve.HostState;
import io.cmdemux.ingress.resolve.Listener;
import io.cmdemux.ingress.resolve.ListenerTable;
import io.cmdemux.ingress.resolve.Resolver;
import io.cmdemux.ingress.resolve.ResolverMode;
import io.cmdemux.ingress.resolve.SyntheticRequest;
import io.cmdemux.ingress.wire.PortSpace;
import io.cmdemux.namespaces.NetnsDiscovery;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.NetnsState;
import io.cmdemux.observer.Correlator;
import io.cmdemux.observer.FeatureCheck;
import io.cmdemux.observer.KernelOutcome;
import io.cmdemux.observer.KernelRequest;
import io.cmdemux.observer.NetnsRef;
import io.cmdemux.observer.Observation;
import io.cmdemux.observer.Observations;
import io.cmdemux.observer.RejectReasons;
import io.cmdemux.observer.TraceInstance;
import io.cmdemux.observer.nldev.CmIdEntry;
import io.cmdemux.observer.nldev.NldevClient;
import io.cmdemux.observer.nldev.NldevDump;
import io.cmdemux.observer.trace.KernelEvent;
import io.cmdemux.observer.trace.LostEvents;
import io.cmdemux.observer.trace.MalformedTraceLineException;
import io.cmdemux.observer.trace.ReqProbeEvent;
import io.cmdemux.observer.trace.TraceLineParser;
import io.cmdemux.pods.PodDirectory;
import java.io.BufferedReader;
import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** `cmdemux watch` on the live kernel: our tracefs instance and kprobe, the nldev dumps, one line per request. */
final class LiveWatch {
    private final WatchCommand cmd;
    private final Map<String, Long> skips = new HashMap<>();
    private volatile boolean stopping;

    LiveWatch(WatchCommand cmd) {
        this.cmd = cmd;
    }

    int run() throws IOException {
        ResolveOptions o = new ResolveOptions();
        HostState state = o.load(cmd.terminal.err());
        PodDirectory podDir = cmd.pods.load(null);
        TraceInstance t = TraceInstance.start(TraceInstance.TRACEFS, TraceInstance.NAME,
                List.of(FeatureCheck.IB_CM_EVENTS, FeatureCheck.RDMA_CM_EVENTS), cmd.probe());
        Thread reader = Thread.currentThread();
        Thread cleanup = new Thread(() -> {
            // SIGTERM/SIGINT: the reader must close trace_pipe before the instance can go (EBUSY otherwise).
            stopping = true;
            t.wakeReaders("cmdemux watch: stopping");
            try {
                reader.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            close(t);
        }, "cmdemux-watch-cleanup");
        Runtime.getRuntime().addShutdownHook(cleanup);
        try (NldevClient nl = NldevClient.open(); BufferedReader pipe = t.pipe()) {
            RejectReasons reasons = RejectReasons.fromFormat(
                    Files.readString(t.format(FeatureCheck.IB_CM_EVENTS, "icm_send_rej"), StandardCharsets.US_ASCII));
            Correlator c = new Correlator(reasons, false);
            NldevDump first = nl.dump();
            // A listener's process may be gone by the time its request is read (ucmatose -c 1 exits after one):
            // each owner's namespace is taken when its cm_id is first seen.
            remember(first);
            Observations obs = new Observations(first, () -> remember(dumpOrNull(nl)),
                    pid -> Optional.ofNullable(PID_NS.get(pid)).map(id -> ref(state, id)));
            TraceLineParser parser = new TraceLineParser();
            cmd.terminal.err().println("watch: reading " + t.directory() + "/trace_pipe");
            cmd.terminal.err().flush();
            for (String line = pipe.readLine(); line != null && !stopping; line = pipe.readLine()) {
                KernelEvent e;
                try {
                    e = parser.parse(line);
                } catch (MalformedTraceLineException ex) {
                    skip(ex.reason());
                    continue;
                }
                if (e == null) {
                    continue;
                }
                if (e instanceof LostEvents lost) {
                    cmd.terminal.err().println("watch: the kernel lost " + lost.count() + " events on CPU " + lost.cpu()
                            + " (its ring was full): requests among them may be missing");
                }
                for (KernelRequest r : c.accept(e)) {
                    Observation ob = obs.of(r);
                    if (!cmd.wanted(ob, podDir)) {
                        continue;
                    }
                    // rdma_cm's listeners as the kernel lists them now (a wildcard one once per device).
                    HostState now = new HostState(state.topology(), state.rdma(), listeners(obs.dump()));
                    Decision d = predict(now, r);
                    boolean agree = d != null && agrees(now, ob, d);
                    List<String> pods = ob.namespace() == null ? List.of() : podDir.podNames(ob.namespace().inode());
                    cmd.print(now, ob, d, agree, pods);
                }
            }
        } finally {
            if (!stopping) {
                Runtime.getRuntime().removeShutdownHook(cleanup);
            }
            close(t);
        }
        return ExitCode.OK;
    }

    private void skip(String reason) {
        if (skips.merge(reason, 1L, Long::sum) == 1) {
            cmd.terminal.err().println("watch: skipping trace lines: " + reason);
        }
    }

    private static NldevDump dumpOrNull(NldevClient nl) {
        try {
            return nl.dump();
        } catch (IOException e) {
            return null;
        }
    }

    private static void close(TraceInstance t) {
        try {
            t.close();
        } catch (IOException e) {
            System.err.println("cmdemux: could not remove " + t.directory() + ": " + e.getMessage());
        }
    }

    private static final Map<Integer, NetnsId> PID_NS = new java.util.concurrent.ConcurrentHashMap<>();

    private static NldevDump remember(NldevDump dump) {
        if (dump != null) {
            for (CmIdEntry c : dump.cmIds()) {
                if (c.pid() != 0 && !PID_NS.containsKey(c.pid())) {
                    try {
                        Path ns = Path.of("/proc", Integer.toString(c.pid()), "ns", "net");
                        PID_NS.put(c.pid(), NetnsDiscovery.idOf(ns));
                    } catch (IOException e) {
                        // gone already
                    }
                }
            }
        }
        return dump;
    }

    private static NetnsRef ref(HostState state, NetnsId id) {
        NetnsState ns = state.topology().namespace(id);
        return new NetnsRef(id.inode(), ns == null ? List.of() : List.of(WatchCommand.name(ns)));
    }

    /** The LISTEN cm_ids of the dump as the resolver's listeners, in the namespace of each owner's process. */
    static ListenerTable listeners(NldevDump dump) {
        List<Listener> out = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        long order = 1;
        for (CmIdEntry c : dump.cmIds()) {
            if (!c.listening() || c.src() == null || c.pid() == 0) {
                continue;
            }
            NetnsId ns = PID_NS.get(c.pid());
            if (ns == null) {
                continue; // the owner was gone before we saw it
            }
            PortSpace ps = PortSpace.byCode(c.ps());
            if (ps == null) {
                continue;
            }
            InetAddress a = c.src().getAddress();
            int scope = a instanceof Inet6Address v6 ? v6.getScopeId() : 0;
            if (seen.add(ns + " " + ps + " " + c.src())) {
                out.add(new Listener(ns, ps, c.src().getPort(), a, Listener.defaultAfonly(a), scope, order++, null,
                        "pid " + c.pid()));
            }
        }
        return new ListenerTable(dump.cmIds().size(), out);
    }

    static Optional<NetnsRef> namespaceOf(HostState state, int pid) {
        try {
            NetnsId id = NetnsDiscovery.idOf(Path.of("/proc", Integer.toString(pid), "ns", "net"));
            NetnsState ns = state.topology().namespace(id);
            return Optional.of(new NetnsRef(id.inode(), ns == null ? List.of() : List.of(WatchCommand.name(ns))));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    static boolean agrees(HostState state, Observation ob, Decision d) {
        if (ob.request().outcome() instanceof KernelOutcome.Delivered) {
            return d.outcome() == Decision.Outcome.DELIVER && ob.namespace() != null && d.netns() != null
                    && d.netns().inode() == ob.namespace().inode();
        }
        return ob.label().equals(LabCheckCommand.outcome(state, d));
    }

    /**
     * cmdemux's decision for the request the kprobe saw, from its own fields: the rdma_cm header's addresses,
     * the service ID's port space and port, the device, port and P_Key. Without the kprobe (ib_cm found no
     * listener, so rdma_cm never saw it) there is nothing to ask.
     */
    static Decision predict(HostState state, KernelRequest r) {
        ReqProbeEvent p = r.probe();
        if (p == null || p.cmaHeader().length < 36) {
            return null;
        }
        byte[] h = p.cmaHeader();
        int ipVersion = (h[1] & 0xff) >>> 4;
        int srcPort = ((h[2] & 0xff) << 8) | (h[3] & 0xff);
        int dstPort = (int) (p.serviceId() & 0xffff);
        try {
            InetAddress src;
            InetAddress dst;
            if (ipVersion == 4) {
                src = InetAddress.getByAddress(Arrays.copyOfRange(h, 16, 20));
                dst = InetAddress.getByAddress(Arrays.copyOfRange(h, 32, 36));
            } else if (ipVersion == 6) {
                src = InetAddress.getByAddress(Arrays.copyOfRange(h, 4, 20));
                dst = InetAddress.getByAddress(Arrays.copyOfRange(h, 20, 36));
            } else {
                return null;
            }
            Optional<PortSpace> ps = PortSpace.ofServiceId(p.serviceId());
            if (ps.isEmpty()) {
                return null;
            }
            SyntheticRequest q = SyntheticRequest.to(new InetSocketAddress(dst, dstPort),
                    new InetSocketAddress(src, srcPort)).device(p.device()).port(p.port()).pkey(p.pkey())
                    .portSpace(ps.get());
            if (p.sgid() != null) {
                q.dgid(Gid.of(p.sgid()));
            }
            return Resolver.resolve(state, q.meta(state.rdma()), ResolverMode.KERNEL);
        } catch (IOException | IllegalArgumentException e) {
            return null;
        }
    }
}
