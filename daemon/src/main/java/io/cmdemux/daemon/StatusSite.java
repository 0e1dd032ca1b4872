package io.cmdemux.daemon;

import io.cmdemux.render.DecisionPictures;
import io.cmdemux.render.DecisionView;
import io.cmdemux.ingress.resolve.Decision;
import io.cmdemux.ingress.resolve.HostState;
import io.cmdemux.ingress.resolve.Listener;
import io.cmdemux.ingress.resolve.Resolver;
import io.cmdemux.ingress.resolve.ResolverMode;
import io.cmdemux.ingress.resolve.TraceStep;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.NetnsState;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.observer.KernelRequest;
import io.cmdemux.observer.KernelWatch;
import io.cmdemux.observer.Prediction;
import io.cmdemux.control.server.ControlServer;
import io.cmdemux.render.picture.DotWriter;
import io.cmdemux.render.picture.Focus;
import io.cmdemux.render.picture.Graph;
import io.cmdemux.render.picture.Graphviz;
import io.cmdemux.render.picture.SvgTitles;
import io.cmdemux.render.picture.TopologyGraph;
import io.cmdemux.dataplane.pipeline.DecisionLog;
import io.cmdemux.daemon.HttpEndpoints.Page;
import io.cmdemux.dataplane.metrics.Metrics;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The daemon's pages on the metrics address: the status page at /, the topology at
 * /topology.svg and /topology.dot, and each logged decision's walk at /decision/N.svg. Builds
 * the models from the live state; the rendering is {@link StatusPage}'s and the pictures'.
 */
final class StatusSite {
    static final int REFRESH_SECONDS = 5;
    /**
     * Above this many links the status page draws only the RDMA ports' part of the host, and
     * above it again no picture: Graphviz's cluster layout grows much faster than linearly, and
     * the page reloads every few seconds. The CLI has --namespace and --port for big hosts.
     */
    static final int MAX_LINKS_DRAWN = 400;

    private static final Map<String, String> PAGE_HEADERS = Map.of(
            // No script may run on these pages, and nothing may be fetched from elsewhere: defence
            // in depth behind the escaping.
            "Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src 'self';"
                    + " frame-ancestors 'none'",
            "X-Content-Type-Options", "nosniff",
            "Cache-Control", "no-store");

    private final Supplier<HostState> state;
    private final ControlServer control;
    private final Metrics metrics;
    private final DecisionLog decisions;
    private final ResolverMode mode;
    private final KernelObserver observer;
    private final String hostName = hostName();
    private final Object pictureLock = new Object();
    private long pictureKey = -1;
    private long pictureRdmaKey = -1;
    private Picture picture;

    /** The live topology drawn once per (topology, RDMA) generation. */
    private record Picture(String dot, String svg, String note) {}

    StatusSite(Supplier<HostState> state, ControlServer control, Metrics metrics, DecisionLog decisions,
            ResolverMode mode, KernelObserver observer) {
        this.observer = observer;
        this.state = state;
        this.control = control;
        this.metrics = metrics;
        this.decisions = decisions;
        this.mode = mode;
    }

    void install(HttpEndpoints http) {
        http.routeOffLoop("/", this::home);
        http.routeOffLoop("/index.html", this::home);
        http.routeOffLoop("/topology.svg", () -> svgPage(picture(state.get())));
        http.routeOffLoop("/topology.dot", () -> new Page(200, "text/vnd.graphviz; charset=utf-8",
                picture(state.get()).dot().getBytes(StandardCharsets.UTF_8)));
        http.routePrefix("/decision/", this::decision);
    }

    Page home() {
        HostState s = state.get();
        TopologySnapshot topo = s.topology();
        Picture p = picture(s);
        List<StatusPage.DecisionRow> rows = new ArrayList<>();
        for (DecisionLog.Entry e : decisions.recent()) {
            rows.add(row(e.state() == null ? topo : e.state().topology(), e)); // names as they were when it was decided
        }
        ControlServer.Stats stats = control.stats();
        Map<NetnsId, Integer> listeners = new HashMap<>();
        for (Listener l : s.listeners().all()) {
            listeners.merge(l.netns(), 1, Integer::sum);
        }
        List<StatusPage.NamespaceRow> nss = new ArrayList<>();
        for (NetnsState ns : topo.namespaces()) {
            nss.add(new StatusPage.NamespaceRow(nsName(ns), ns.id().inode(),
                    stats.consumersPerNamespace().getOrDefault(ns.id(), 0), listeners.getOrDefault(ns.id(), 0),
                    stats.namespacesServed().contains(ns.id())));
        }
        StatusPage.Model m = new StatusPage.Model(hostName, Instant.now(), REFRESH_SECONDS, topo.generation(),
                s.rdma().generation(), stats.listenerGeneration(), decisions.total(), rows,
                p.svg() == null ? null : SvgTitles.inline(p.svg()), p.note(), nss, metrics.readings(),
                kernelSection(observer));
        return new Page(200, "text/html; charset=utf-8", StatusPage.render(m).getBytes(StandardCharsets.UTF_8),
                PAGE_HEADERS);
    }

    static StatusPage.KernelSection kernelSection(KernelObserver o) {
        List<StatusPage.KernelRow> rows = new ArrayList<>();
        for (KernelObserver.Row r : o.recent()) {
            KernelWatch.Verdict v = r.verdict();
            KernelRequest q = v.observation().request();
            rows.add(new StatusPage.KernelRow(r.seq(), r.time().toEpochMilli(),
                    (q.device() == null ? "?" : q.device()) + (q.port() == 0 ? "" : "/" + q.port()),
                    q.localCommIdText(), v.observation().label(), String.join(", ", r.pods()),
                    v.compared() ? Prediction.label(v.state(), v.prediction()) : "",
                    v.compared() ? (v.agree() ? "agree" : "DISAGREE") : ""));
        }
        StringBuilder skips = new StringBuilder();
        o.skips().forEach((why, n) -> skips.append(skips.length() == 0 ? "" : "; ").append(n).append(" ").append(why));
        return new StatusPage.KernelSection(o.state(), o.total(), o.disagreements(), skips.toString(), rows);
    }

    private StatusPage.DecisionRow row(TopologySnapshot topo, DecisionLog.Entry e) {
        Decision d = e.decision();
        var meta = e.meta();
        String request = (meta.afIb() ? "AF_IB" : io.cmdemux.netdev.InetAddresses.toText(meta.srcIp()) + ":"
                + meta.srcPort() + " → " + io.cmdemux.netdev.InetAddresses.toText(meta.dstIp()) + ":" + meta.port())
                + String.format(" comm 0x%08x", meta.localCommId());
        String ns = "";
        if (d.netns() != null) {
            NetnsState s = topo.namespace(d.netns());
            ns = s == null ? "inode " + d.netns().inode() + " (gone)" : nsName(s) + " (" + d.netns().inode() + ")";
        }
        String reason;
        switch (d.outcome()) {
            case DELIVER:
                reason = "listener " + DecisionView.listenerText(d.listener())
                        + (d.listener().owner() == null ? "" : " of " + d.listener().owner());
                break;
            case REJECT:
                List<TraceStep> t = d.trace();
                reason = "REJ " + d.rejectReason() + (d.rejectReason() == Decision.REJ_INVALID_SERVICE_ID
                        ? " invalid service ID" : " consumer defined")
                        + (t.isEmpty() ? "" : ": " + t.get(t.size() - 1).why());
                break;
            default:
                reason = d.dropReason();
        }
        return new StatusPage.DecisionRow(e.seq(), e.epochMillis(), e.device(), request,
                d.outcome().name().toLowerCase(), ns, reason,
                "/decision/" + e.seq() + ".svg");
    }

    /** /decision/N.svg: the walk of logged decision N, drawn on the host state it was made on. */
    Page decision(String rest) {
        if (!rest.endsWith(".svg") && !rest.endsWith(".dot")) {
            return Page.text(404, "expected /decision/N.svg or /decision/N.dot\n");
        }
        long seq;
        try {
            seq = Long.parseLong(rest.substring(0, rest.length() - 4));
        } catch (NumberFormatException e) {
            return Page.text(404, "expected /decision/N.svg, N a decision's number\n");
        }
        Optional<DecisionLog.Entry> e = decisions.get(seq);
        if (e.isEmpty()) {
            return Page.text(404, "no decision " + seq + " among the last " + decisions.capacity() + " ("
                    + decisions.total() + " so far)\n");
        }
        HostState s = e.get().state();
        Decision d = e.get().decision();
        // The other mode on the same request and the same host marks where the two part.
        Decision other = Resolver.resolve(s, e.get().meta(),
                mode == ResolverMode.KERNEL ? ResolverMode.NETSTACK : ResolverMode.KERNEL);
        Graph g = DecisionPictures.graph(s.topology(), s.rdma(), e.get().meta(), d, other);
        String dot = DotWriter.write(g);
        if (rest.endsWith(".dot")) {
            return new Page(200, "text/vnd.graphviz; charset=utf-8", dot.getBytes(StandardCharsets.UTF_8));
        }
        try {
            return svgPage(new Picture(dot, Graphviz.fromEnvironment().svg(dot), null));
        } catch (Graphviz.GraphvizException ex) {
            return Page.text(503, ex.getMessage() + "\n");
        }
    }

    private Page svgPage(Picture p) {
        if (p.svg() == null) {
            return Page.text(503, p.note() + "\n");
        }
        return new Page(200, "image/svg+xml; charset=utf-8", p.svg().getBytes(StandardCharsets.UTF_8), PAGE_HEADERS);
    }

    /** The live topology's picture, drawn again only when a generation moved. */
    private Picture picture(HostState s) {
        synchronized (pictureLock) {
            if (picture != null && pictureKey == s.topology().generation() && pictureRdmaKey == s.rdma().generation()) {
                return picture;
            }
            picture = draw(s);
            pictureKey = s.topology().generation();
            pictureRdmaKey = s.rdma().generation();
            return picture;
        }
    }

    private static Picture draw(HostState s) {
        TopologySnapshot topo = s.topology();
        Focus.Selection sel = Focus.ALL.select(topo, s.rdma());
        String note = null;
        if (sel.links().size() > MAX_LINKS_DRAWN) {
            sel = Focus.portsOnly(topo, s.rdma());
            note = topo.linkCount() + " links are too many to draw here; this is the RDMA ports' part of the host."
                    + " `cmdemux topology --format svg --namespace NAME` draws any part of it.";
        }
        String dot = DotWriter.write(TopologyGraph.build(topo, s.rdma(), sel));
        if (sel.links().size() > MAX_LINKS_DRAWN) {
            return new Picture(dot, null, sel.links().size() + " links are too many to draw on this page;"
                    + " use cmdemux topology --format svg --namespace NAME or --port DEV/N");
        }
        try {
            return new Picture(dot, Graphviz.fromEnvironment().svg(dot), note);
        } catch (Graphviz.GraphvizException e) {
            return new Picture(dot, null, "no topology picture: " + e.getMessage());
        }
    }

    private static String nsName(NetnsState s) {
        if (s.host()) {
            return s.names().isEmpty() ? "host" : "host (" + String.join(", ", s.names()) + ")";
        }
        return s.names().isEmpty() ? "(unnamed)" : String.join(", ", s.names());
    }

    private static String hostName() {
        try {
            return Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
        } catch (IOException e) {
            return "this host";
        }
    }
}
