package io.cmdemux.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cmdemux.ingress.resolve.Decision;
import io.cmdemux.ingress.resolve.HostState;
import io.cmdemux.ingress.resolve.ResolverMode;
import io.cmdemux.gid.SysfsLayout;
import io.cmdemux.namespaces.NetnsDiscovery;
import io.cmdemux.namespaces.NetnsExecutor;
import io.cmdemux.namespaces.TopologyWatcher;
import io.cmdemux.observer.FeatureCheck;
import io.cmdemux.observer.Features;
import io.cmdemux.observer.KernelOutcome;
import io.cmdemux.observer.KernelRequest;
import io.cmdemux.observer.KernelWatch;
import io.cmdemux.observer.LiveHost;
import io.cmdemux.observer.LabRecording;
import io.cmdemux.observer.Observation;
import io.cmdemux.observer.Observations;
import io.cmdemux.observer.Prediction;
import io.cmdemux.observer.ReqProbe;
import io.cmdemux.observer.btf.BtfException;
import io.cmdemux.observer.btf.KernelBtf;
import io.cmdemux.observer.trace.LostEvents;
import io.cmdemux.observer.trace.ReqProbeEvent;
import io.cmdemux.pods.PodDirectory;
import io.cmdemux.render.DecisionView;
import io.cmdemux.render.TopologyView;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "watch", mixinStandardHelpOptions = true,
        description = {"What the kernel's RDMA CM did with every connection request it received (tracefs and",
                "RDMA netlink), next to cmdemux's kernel-mode decision for it. --lab DIR replays a kernel-lab",
                "recording instead of the live kernel; exit 1 there when cmdemux and the kernel disagree."})
final class WatchCommand implements Callable<Integer> {
    @Mixin
    Terminal terminal = new Terminal();

    @Option(names = "--json", description = "one JSON object per request")
    boolean json;

    @Option(names = "--namespace", paramLabel = "NAME", description = "only requests delivered into this namespace")
    List<String> namespaces = new ArrayList<>();

    @Option(names = "--pod", paramLabel = "NS/NAME", description = "only requests delivered to this pod (cmdemux-cni)")
    String pod;

    @Option(names = "--silence-after", paramLabel = "SECONDS",
            description = "live: a request unanswered this long was met with silence (default 5: rdma_cm's own "
                    + "response timeout is 4.3 s)")
    double silenceAfter = KernelWatch.DEFAULT_SILENCE.toMillis() / 1000.0;

    @Option(names = "--lab", paramLabel = "DIR",
            description = "a kernel-lab fixture: its tracefs/ and rdma/ recordings instead of the live kernel")
    Path lab;

    @Option(names = "--print-probe", description = "print the kprobe definition for the kernel's BTF, then exit")
    boolean printProbe;

    @Option(names = "--btf-dir", paramLabel = "DIR", description = "where the BTF files are (default /sys/kernel/btf)")
    Path btfDir = KernelBtf.SYS_KERNEL_BTF;

    @Mixin
    PodOptions pods = new PodOptions();

    @Override
    public Integer call() throws IOException {
        if (printProbe) {
            terminal.out().println(probe().definition());
            return ExitCode.OK;
        }
        if (lab != null) {
            return replayLab();
        }
        if (!(silenceAfter > 0 && silenceAfter <= 3600)) {
            throw new IllegalArgumentException("--silence-after: more than 0 and at most 3600 seconds, not "
                    + silenceAfter);
        }
        Features f = FeatureCheck.host().check();
        if (!f.complete()) {
            throw new EnvironmentException("watch: " + f.summary());
        }
        return live();
    }

    /** The live kernel, until SIGINT or SIGTERM; the topology is the watcher's, so it follows the host's. */
    private int live() throws IOException {
        PodDirectory podDir = pods.load(null);
        try (NetnsExecutor executor = new NetnsExecutor(2);
                TopologyWatcher topology = new TopologyWatcher(new NetnsDiscovery(), executor)) {
            topology.start();
            LiveHost host = new LiveHost(topology, SysfsLayout.live(SysfsLayout.LIVE_ROOT));
            KernelWatch watch = KernelWatch.live(host, KernelWatch.procOwners(),
                    Duration.ofMillis(Math.round(silenceAfter * 1000)));
            KernelWatch.LiveKernel kernel = KernelWatch.LiveKernel.open(probe());
            Thread reader = Thread.currentThread();
            Thread cleanup = new Thread(() -> {
                watch.stop(kernel, reader, "cmdemux watch: stopping"); // SIGTERM, SIGINT
                close(kernel);
            }, "cmdemux-watch-cleanup");
            Runtime.getRuntime().addShutdownHook(cleanup);
            try {
                terminal.err().println("watch: reading " + kernel.directory() + "/trace_pipe");
                terminal.err().flush();
                watch.run(kernel, kernel.rejectReasons(), new KernelWatch.Sink() {
                    @Override
                    public void verdict(KernelWatch.Verdict v) {
                        if (wanted(v.observation(), podDir)) {
                            Observation ob = v.observation();
                            print(v.state(), ob, v.prediction(), v.agree(),
                                    ob.namespace() == null ? List.of() : podDir.podNames(ob.namespace().inode()));
                        }
                    }

                    @Override
                    public void lost(LostEvents e) {
                        terminal.err().println("watch: the kernel lost " + e.count() + " events on CPU " + e.cpu()
                                + " (its ring was full): requests among them may be missing");
                    }

                    @Override
                    public void skipping(String reason) {
                        terminal.err().println("watch: skipping trace lines: " + reason);
                    }
                });
            } finally {
                try {
                    Runtime.getRuntime().removeShutdownHook(cleanup);
                } catch (IllegalStateException e) {
                    // shutting down: the hook closes it
                }
                close(kernel);
            }
        }
        return ExitCode.OK;
    }

    private static void close(KernelWatch.LiveKernel kernel) {
        try {
            kernel.close();
        } catch (IOException e) {
            System.err.println("cmdemux: could not remove " + kernel.directory() + ": " + e.getMessage());
        }
    }

    ReqProbe probe() throws IOException {
        try {
            return ReqProbe.fromBtf(KernelBtf.open(btfDir).module("rdma_cm"));
        } catch (BtfException e) {
            throw new EnvironmentException(btfDir + ": " + e.getMessage(), e);
        }
    }

    private int replayLab() throws IOException {
        ResolveOptions o = new ResolveOptions();
        o.lab = lab;
        HostState state = o.load(terminal.err());
        Map<Long, Decision> predicted = new HashMap<>();
        for (ReplayCommand.Replayed r : ReplayCommand.replay(state, lab.resolve("cm.pcap"), null, 1,
                List.of(ResolverMode.KERNEL))) {
            // A retransmission repeats the comm ID; the kernel decided on the first.
            predicted.putIfAbsent(r.meta().localCommId() & 0xffffffffL, r.decisions().get(0));
        }
        LabRecording rec = new LabRecording(lab);
        if (!rec.hasTrace()) {
            throw new EnvironmentException(lab + ": no tracefs/trace.txt (a fixture recorded before issue 18)");
        }
        List<String> skipped = new ArrayList<>();
        Observations obs = new Observations(rec.nldev(skipped), null, rec.pids());
        LabRecording.Replay replay = rec.replay();
        replay.malformed().forEach((why, n) -> terminal.err().println("watch: skipped " + n + " lines: " + why));
        skipped.forEach(s -> terminal.err().println("watch: skipped " + s));
        replay.skips().forEach((why, n) -> terminal.err().println("watch: skipped " + n + " events: " + why));
        if (replay.lostEvents() > 0) {
            terminal.err().println("watch: the recording lost " + replay.lostEvents() + " events (a full ring)");
        }
        int disagreements = 0;
        for (KernelRequest r : replay.requests()) {
            Observation ob = obs.of(r);
            if (!wanted(ob, PodDirectory.EMPTY)) {
                continue;
            }
            Decision d = predicted.get(r.localCommId());
            boolean agree = d != null && ob.label().equals(Prediction.label(state, d));
            disagreements += agree ? 0 : 1;
            print(state, ob, d, agree, List.of());
        }
        return disagreements == 0 ? ExitCode.OK : ExitCode.NO;
    }

    boolean wanted(Observation ob, PodDirectory podDir) {
        if (!namespaces.isEmpty() && (ob.namespace() == null
                || ob.namespace().names().stream().noneMatch(namespaces::contains))) {
            return false;
        }
        if (pod != null) {
            return ob.namespace() != null && podDir.byPod(pod).stream()
                    .anyMatch(p -> p.netnsInode() == ob.namespace().inode());
        }
        return true;
    }

    void print(HostState state, Observation ob, Decision d, boolean agree, List<String> podNames) {
        KernelRequest r = ob.request();
        if (json) {
            terminal.out().println(json(state, ob, d, agree, podNames));
            terminal.out().flush();
            return;
        }
        String where = "";
        if (r.outcome() instanceof KernelOutcome.Delivered del) {
            where = " (listener cm.id " + del.listenerCmId() + " " + del.listenerAddress()
                    + (ob.listener() == null ? "" : ", pid " + ob.listener().pid())
                    + (podNames.isEmpty() ? "" : ", pod " + String.join(",", podNames)) + ")";
        }
        String predictedText = d == null ? "no prediction (the request is not in the capture)"
                : DecisionView.summary(state.topology(), d);
        terminal.out().printf("%.6f comm %s %s%s kernel: %s%s; cmdemux: %s; %s%n", r.timestampNanos() / 1e9,
                r.localCommIdText(), r.device() == null ? "?" : r.device(), r.port() == 0 ? "" : "/" + r.port(),
                ob.label(), where, predictedText, agree ? "agree" : "DISAGREE");
        if (!agree && d != null) {
            terminal.out().print(DecisionView.text(state.topology(), d));
        }
        terminal.out().flush();
    }

    /** replay --json's shape (localCommId, outcome, rejectReason, namespace, listener), plus prediction and agree. */
    static String json(HostState state, Observation ob, Decision d, boolean agree, List<String> podNames) {
        KernelRequest r = ob.request();
        ObjectNode o = TopologyView.JSON.createObjectNode();
        o.put("time", r.timestampNanos() / 1e9);
        o.put("localCommId", r.localCommIdText());
        o.put("sidr", r.sidr());
        o.put("device", r.device());
        o.put("port", r.port());
        if (r.probe() != null && r.probe().gidIndex() != ReqProbeEvent.NO_GID_INDEX) {
            o.put("gidIndex", r.probe().gidIndex());
        } else {
            o.putNull("gidIndex");
        }
        KernelOutcome k = r.outcome();
        o.put("outcome", k instanceof KernelOutcome.Delivered ? "deliver"
                : k instanceof KernelOutcome.Rejected ? "reject" : "drop");
        if (k instanceof KernelOutcome.Rejected rej) {
            o.put("rejectReason", rej.reason());
            o.put("why", rej.why());
        } else {
            o.putNull("rejectReason");
        }
        if (ob.namespace() != null) {
            ObjectNode ns = o.putObject("namespace");
            ns.put("inode", ob.namespace().inode());
            ArrayNode names = ns.putArray("names");
            ob.namespace().names().forEach(names::add);
        } else {
            o.putNull("namespace");
        }
        if (k instanceof KernelOutcome.Delivered del) {
            ObjectNode l = o.putObject("listener");
            l.put("cmId", del.listenerCmId());
            l.put("address", del.listenerAddress());
            if (ob.listener() != null) {
                l.put("pid", ob.listener().pid());
                l.put("ps", ob.listener().ps());
            }
        } else {
            o.putNull("listener");
        }
        ArrayNode p = o.putArray("pods");
        podNames.forEach(p::add);
        if (d != null) {
            o.set("prediction", DecisionView.json(state.topology(), d));
        } else {
            o.putNull("prediction");
        }
        if (d == null) {
            // Nothing to compare: the kprobe never saw it (ib_cm found no listener) and there is no capture.
            o.putNull("agree");
        } else {
            o.put("agree", agree);
        }
        try {
            return TopologyView.JSON.writeValueAsString(o);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
