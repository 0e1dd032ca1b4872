package io.cmdemux.daemon;

import io.cmdemux.gid.HostSnapshot;
import io.cmdemux.gid.SysfsLayout;
import io.cmdemux.observer.FeatureCheck;
import io.cmdemux.observer.Features;
import io.cmdemux.observer.KernelRequest;
import io.cmdemux.observer.KernelWatch;
import io.cmdemux.observer.LiveHost;
import io.cmdemux.observer.Observation;
import io.cmdemux.observer.Prediction;
import io.cmdemux.observer.ReqProbe;
import io.cmdemux.observer.btf.BtfException;
import io.cmdemux.observer.btf.KernelBtf;
import io.cmdemux.observer.trace.LostEvents;
import io.cmdemux.pods.PodDirectory;
import io.cmdemux.render.DecisionView;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * serve's kernel observer (issue 18): on a host whose kernel runs the RDMA CM itself (a hardware NIC, or rxe),
 * what the kernel did with every request it received, cmdemux's kernel-mode decision for the same request, and
 * whether they agree, for the metrics, the status page and the log. A disagreement is logged with the explain
 * trace and, at most once a minute, saves the host's state beside a note of the request, for a bug report.
 */
final class KernelObserver implements AutoCloseable {
    static final int RECENT = 100;
    private static final Logger log = LoggerFactory.getLogger(KernelObserver.class);
    private static final DateTimeFormatter FILE_TIME = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'",
            Locale.ROOT).withZone(ZoneOffset.UTC);

    /** One request on the status page, with the pods of the namespace it went to as they were then. */
    record Row(long seq, Instant time, KernelWatch.Verdict verdict, List<String> pods) {}

    private final KernelDecisionMetrics metrics;
    private final Supplier<PodDirectory> pods;
    private final Path disagreementsDir;
    private final SysfsLayout sysfs;
    private final Clock clock;
    private final Deque<Row> recent = new ArrayDeque<>();
    private final AtomicLong total = new AtomicLong();
    private final AtomicLong disagreements = new AtomicLong();
    private final ExecutorService saver = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "cmdemux-observer-snapshot");
        t.setDaemon(true);
        return t;
    });
    private volatile String state = "not started";
    private volatile boolean running;
    private KernelWatch watch;
    private KernelWatch.LiveKernel kernel;
    private Thread reader;

    /** @param disagreementsDir where disagreements save their snapshots; null for none */
    KernelObserver(KernelDecisionMetrics metrics, Supplier<PodDirectory> pods, Path disagreementsDir,
            SysfsLayout sysfs, Clock clock) {
        this.metrics = metrics;
        this.pods = pods;
        this.disagreementsDir = disagreementsDir;
        this.sysfs = sysfs;
        this.clock = clock;
    }

    /** Starts reading the live kernel; where it lacks what that needs, says so in {@link #state()} and the log. */
    void startLive(LiveHost host, Path btfDir) {
        Features f = FeatureCheck.host().check();
        if (!f.complete()) {
            off(f.summary());
            return;
        }
        ReqProbe probe;
        try {
            probe = ReqProbe.fromBtf(KernelBtf.open(btfDir).module("rdma_cm"));
            kernel = KernelWatch.LiveKernel.open(probe);
        } catch (BtfException | IOException | RuntimeException e) {
            off(btfDir + ": " + e.getMessage());
            return;
        }
        watch = KernelWatch.live(host, KernelWatch.procOwners(), KernelWatch.DEFAULT_SILENCE);
        running = true;
        state = "observing " + kernel.directory();
        reader = new Thread(this::read, "cmdemux-observer");
        reader.setDaemon(true);
        reader.start();
        log.info("kernel observer: reading {}/trace_pipe", kernel.directory());
    }

    void off(String why) {
        state = "off: " + why;
        log.warn("kernel observer off: {}", why);
    }

    private void read() {
        try {
            watch.run(kernel, kernel.rejectReasons(), new KernelWatch.Sink() {
                @Override
                public void verdict(KernelWatch.Verdict v) {
                    accept(v);
                }

                @Override
                public void lost(LostEvents e) {
                    log.warn("kernel observer: the kernel lost {} events on CPU {} (its ring was full)", e.count(),
                            e.cpu());
                }

                @Override
                public void skipping(String reason) {
                    log.warn("kernel observer: skipping trace lines: {}", reason);
                }
            });
            if (running) {
                state = "stopped: the kernel's trace_pipe ended";
            }
        } catch (IOException | RuntimeException e) {
            if (running) {
                state = "stopped: " + e;
                log.error("kernel observer stopped", e);
            }
        } finally {
            running = false;
        }
    }

    /** One settled request: counted, listed, and on a disagreement logged and perhaps saved. */
    void accept(KernelWatch.Verdict v) {
        Observation ob = v.observation();
        List<String> podNames = ob.namespace() == null ? List.of() : pods.get().podNames(ob.namespace().inode());
        boolean disagree = v.compared() && !v.agree();
        Instant now = clock.instant();
        boolean save = metrics.record(ob, podNames, !disagree);
        long seq = total.incrementAndGet();
        synchronized (recent) {
            recent.addFirst(new Row(seq, now, v, podNames));
            while (recent.size() > RECENT) {
                recent.removeLast();
            }
        }
        if (!disagree) {
            return;
        }
        disagreements.incrementAndGet();
        KernelRequest r = ob.request();
        String trace = DecisionView.text(v.state().topology(), v.prediction());
        String note = String.format("comm %s on %s/%d: the kernel %s, cmdemux's kernel mode %s%n%s",
                r.localCommIdText(), r.device(), r.port(), ob.label(), Prediction.label(v.state(), v.prediction()),
                trace);
        log.warn("kernel observer: disagreement: {}", note.strip());
        if (save && disagreementsDir != null) {
            String name = "disagreement-" + FILE_TIME.format(now) + "-comm-" + r.localCommIdText();
            saver.execute(() -> saveSnapshot(name, note));
        }
    }

    private void saveSnapshot(String name, String note) {
        try {
            Files.createDirectories(disagreementsDir);
            Files.writeString(disagreementsDir.resolve(name + ".txt"), note, StandardCharsets.UTF_8);
            HostSnapshot.Saved s = HostSnapshot.save(disagreementsDir.resolve(name + ".zip"), sysfs);
            log.warn("kernel observer: saved {} ({} namespaces) for a bug report, with {}.txt", s.file(),
                    s.namespaces(), name);
        } catch (IOException | RuntimeException e) {
            log.warn("kernel observer: could not save {} in {}: {}", name, disagreementsDir, e.toString());
        }
    }

    /** "observing DIR", "off: why" or "stopped: why". */
    String state() {
        return state;
    }

    boolean running() {
        return running;
    }

    long total() {
        return total.get();
    }

    long disagreements() {
        return disagreements.get();
    }

    /** Skipped lines and events by reason, since start. */
    Map<String, Long> skips() {
        KernelWatch w = watch;
        return w == null ? Map.of() : w.skips();
    }

    /** The last requests, newest first. */
    List<Row> recent() {
        synchronized (recent) {
            return new ArrayList<>(recent);
        }
    }

    @Override
    public void close() {
        saver.shutdown();
        if (kernel == null) {
            return;
        }
        running = false;
        watch.stop(kernel, reader, "cmdemux serve: stopping");
        try {
            kernel.close();
        } catch (IOException e) {
            log.warn("kernel observer: could not remove {}: {}", kernel.directory(), e.getMessage());
        }
    }
}
