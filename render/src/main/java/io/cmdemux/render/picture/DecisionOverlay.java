package io.cmdemux.render.picture;

import io.cmdemux.gid.RdmaDevice;
import io.cmdemux.gid.RdmaPort;
import io.cmdemux.gid.RdmaTopology;
import io.cmdemux.ingress.resolve.Decision;
import io.cmdemux.ingress.resolve.Listener;
import io.cmdemux.ingress.resolve.Resolver;
import io.cmdemux.ingress.resolve.TraceCandidate;
import io.cmdemux.ingress.resolve.TraceRef;
import io.cmdemux.ingress.resolve.TraceStep;
import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.netdev.InetAddresses;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A decision drawn on the topology: the ingress port's part of the host, the walk highlighted
 * (request → port → GID entry or P_Key → uppers → final netdev → namespace → listener, the trace
 * step names on its edges, ids walk_1, walk_2, ...), rejected candidates dimmed with the reason
 * as their tooltip, and where another mode's answer differs, that step marked. Pure.
 */
public final class DecisionOverlay {
    public static final String REQUEST = "request";
    public static final String OUTCOME = "outcome";
    public static final String NOTE = "note_disagree";
    /**
     * Up to this many links the ingress port's whole part of the host is drawn around the walk;
     * beyond it (a port shared by hundreds of pods) only what the trace points at, so that the
     * picture stays readable and Graphviz quick.
     */
    static final int PORT_CONTEXT_LINKS = 60;
    /** A step's turned-down candidates drawn at most (netstack's rx-upper on a port with a thousand macvlans). */
    static final int CANDIDATES_DRAWN = 12;

    private DecisionOverlay() {}

    /**
     * What to draw besides the topology.
     *
     * @param decision the decision whose walk is highlighted
     * @param other the other mode's decision for the same request, or null
     * @param request lines for the request node ("CM REQ", "10.0.0.9:4000 → 10.0.0.2:7471")
     * @param caption lines under the picture (the outcome in words)
     * @param hint why the modes likely disagree, or null
     */
    public record Scene(Decision decision, Decision other, List<String> request, List<String> caption, String hint) {}

    public static Graph draw(TopologySnapshot topo, RdmaTopology rdma, Scene scene) {
        Decision d = scene.decision();
        List<String> left = new ArrayList<>();
        Graph g = TopologyGraph.build(topo, rdma, selection(topo, rdma, scene, left));
        g.caption().clear();
        g.caption().addAll(scene.caption());
        g.caption().addAll(left);
        g.caption().add("topology generation " + topo.generation() + (d.topologyGeneration() != topo.generation()
                ? " (the decision was made on generation " + d.topologyGeneration() + ")" : ""));
        Graph.Node req = g.node(REQUEST, null, Graph.Kind.REQUEST, scene.request());
        req.classes.add("walk");
        req.tooltip = String.join("\n", scene.request());
        addListeners(g, d);
        if (scene.other() != null && scene.other().listener() != null) {
            addListener(g, scene.other().listener());
        }
        DecisionWalk.Walk walk = DecisionWalk.of(d);
        List<Graph.Edge> walkEdges = new ArrayList<>();
        String prev = REQUEST;
        for (DecisionWalk.Hop hop : walk.hops()) {
            Graph.Node n = g.node(hop.node());
            if (n == null) {
                continue; // not in this topology any more (the daemon draws old decisions on the current host)
            }
            n.classes.add("walk");
            walkEdges.add(walkEdge(g, d, walkEdges.size() + 1, prev, hop.node(), hop.steps()));
            prev = hop.node();
        }
        if (d.outcome() != Decision.Outcome.DELIVER || !walk.trailing().isEmpty()) {
            Graph.Node out = g.node(OUTCOME, TopologyGraph.clusterOf(g, d.netns() == null ? topo.host() : d.netns()),
                    Graph.Kind.OUTCOME, outcomeLines(d));
            out.classes.add("walk");
            out.classes.add(d.outcome() == Decision.Outcome.DELIVER ? "delivered" : "rejected");
            List<TraceStep> t = d.trace();
            out.tooltip = String.join("\n", outcomeLines(d)) + (t.isEmpty() ? "" : "\n" + t.get(t.size() - 1).step()
                    + ": " + t.get(t.size() - 1).why());
            Graph.Edge e = walkEdge(g, d, walkEdges.size() + 1, prev, OUTCOME, walk.trailing());
            e.classes.add("walk-end");
            walkEdges.add(e);
        }
        // A walk edge stands for the topology edge between the same two nodes (the GID edge, the port's netdev);
        // two edges side by side would only crowd their labels.
        Set<String> walked = new LinkedHashSet<>();
        walkEdges.forEach(e -> walked.add(e.from + " " + e.to));
        g.removeEdges(e -> !e.classes.contains("walk") && walked.contains(e.from + " " + e.to));
        dimRejected(g, d, walk);
        if (scene.other() != null) {
            markDisagreement(g, scene, walkEdges);
        }
        return g;
    }

    private static Graph.Edge walkEdge(Graph g, Decision d, int n, String from, String to, List<Integer> steps) {
        List<String> lines = new ArrayList<>();
        StringBuilder tip = new StringBuilder();
        for (int i : steps) {
            lines.add(DecisionWalk.stepLabel(d.trace(), i));
            TraceStep s = d.trace().get(i);
            if (tip.length() > 0) {
                tip.append('\n');
            }
            tip.append(DecisionWalk.stepLabel(d.trace(), i)).append(" [").append(s.kernelFunction()).append("]: ")
                    .append(s.why());
        }
        Graph.Edge e = g.edge("walk_" + n, from, to, "walk", lines);
        e.tooltip = tip.toString();
        return e;
    }

    private static List<String> outcomeLines(Decision d) {
        switch (d.outcome()) {
            case DELIVER:
                return List.of("DELIVER");
            case REJECT:
                return List.of("REJECT " + d.rejectReason(), d.rejectReason() == Decision.REJ_INVALID_SERVICE_ID
                        ? "invalid service ID" : "consumer defined");
            default:
                return List.of("DROP", "nothing is sent");
        }
    }

    /** The ingress port's part of the host, plus everything the trace and the other mode point at. */
    private static Focus.Selection selection(TopologySnapshot topo, RdmaTopology rdma, Scene scene,
            List<String> caption) {
        Set<LinkRef> links = new LinkedHashSet<>();
        Set<NetnsId> namespaces = new LinkedHashSet<>();
        List<Focus.PortRef> ports = new ArrayList<>();
        for (Decision d : scene.other() == null ? List.of(scene.decision())
                : List.of(scene.decision(), scene.other())) {
            for (int i = 0; i < d.trace().size(); i++) {
                TraceStep s = d.trace().get(i);
                collect(s.at(), links, namespaces, rdma, ports);
                int rejected = 0;
                for (TraceCandidate c : s.options()) {
                    if (c.rejected() == null || rejected++ < CANDIDATES_DRAWN) {
                        collect(c.ref(), links, namespaces, rdma, ports);
                    }
                }
                if (rejected > CANDIDATES_DRAWN) {
                    caption.add(d.mode().cliName() + " mode's step " + (i + 1) + " " + s.step()
                            + " turned down " + rejected + (rejected >= Resolver.TURNED_DOWN_KEPT ? " or more" : "")
                            + " candidates; the first " + CANDIDATES_DRAWN + " are drawn");
                }
            }
            if (d.netdev() != null) {
                links.add(d.netdev());
            }
            if (d.netns() != null) {
                namespaces.add(d.netns());
            }
        }
        for (Focus.PortRef p : ports) {
            Set<LinkRef> around = Focus.closure(topo, p.port());
            if (around.size() <= PORT_CONTEXT_LINKS) {
                links.addAll(around);
            } else {
                caption.add("only what the trace points at is drawn: " + p.device().name() + "/"
                        + p.port().number() + " reaches " + around.size()
                        + " links (cmdemux topology --port draws them)");
            }
        }
        links.removeIf(l -> topo.link(l) == null);
        namespaces.removeIf(n -> topo.namespace(n) == null);
        links.forEach(l -> namespaces.add(l.netns()));
        return Focus.of(topo, links, namespaces, ports);
    }

    private static void collect(TraceRef ref, Set<LinkRef> links, Set<NetnsId> namespaces, RdmaTopology rdma,
            List<Focus.PortRef> ports) {
        if (ref instanceof TraceRef.Port p) {
            port(rdma, p.device(), p.port()).filter(x -> !ports.contains(x)).ifPresent(ports::add);
        } else if (ref instanceof TraceRef.GidIndex gi && gi.ndev() != null) {
            links.add(gi.ndev());
        } else if (ref instanceof TraceRef.Netdev n) {
            links.add(n.link());
        } else if (ref instanceof TraceRef.Namespace n) {
            namespaces.add(n.netns());
        } else if (ref instanceof TraceRef.Listen l) {
            namespaces.add(l.listener().netns());
        }
    }

    private static Optional<Focus.PortRef> port(RdmaTopology rdma, String device, int number) {
        Optional<RdmaDevice> d = rdma.device(device);
        Optional<RdmaPort> p = d.flatMap(x -> x.port(number));
        return p.map(x -> new Focus.PortRef(d.get(), x));
    }

    private static void addListeners(Graph g, Decision d) {
        for (TraceStep s : d.trace()) {
            if (s.at() instanceof TraceRef.Listen l) {
                addListener(g, l.listener());
            }
            for (TraceCandidate c : s.options()) {
                if (c.ref() instanceof TraceRef.Listen l) {
                    addListener(g, l.listener());
                }
            }
        }
    }

    private static void addListener(Graph g, Listener l) {
        String id = Ids.listener(l);
        if (g.has(id)) {
            return;
        }
        String addr = l.afIb() ? "AF_IB" : InetAddresses.toText(l.address());
        Graph.Node n = g.node(id, TopologyGraph.clusterOf(g, l.netns()), Graph.Kind.LISTENER,
                List.of("listener " + addr + ":" + l.port() + "/" + l.portSpace().cliName()));
        if (l.owner() != null) {
            n.label.add(l.owner());
        }
        n.tooltip = "listener " + addr + ":" + l.port() + " (" + l.portSpace().cliName()
                + (l.afonly() ? ", afonly" : "") + ")" + (l.owner() == null ? "" : ", owner " + l.owner()) + ", bound #"
                + l.bindOrder();
        if (g.has(Ids.namespace(l.netns()))) {
            Graph.Edge e = g.edge(null, Ids.namespace(l.netns()), id, "listens", List.of());
            e.tooltip = "listens in this namespace";
        }
    }

    /** Candidates a step turned down: dimmed, the reason as their tooltip; a GID entry gets its own dimmed edge. */
    private static void dimRejected(Graph g, Decision d, DecisionWalk.Walk walk) {
        Set<String> onWalk = new LinkedHashSet<>();
        walk.hops().forEach(h -> onWalk.add(h.node()));
        List<TraceStep> trace = d.trace();
        for (int i = 0; i < trace.size(); i++) {
            TraceStep s = trace.get(i);
            for (TraceCandidate c : s.options()) {
                if (c.rejected() == null) {
                    continue;
                }
                String why = (i + 1) + " " + s.step() + " rejected this: " + c.rejected();
                if (c.ref() instanceof TraceRef.GidIndex gi) {
                    String port = Ids.rdmaPort(gi.device(), gi.port());
                    String ndev = gi.ndev() == null ? null : Ids.link(gi.ndev());
                    if (g.has(port) && ndev != null && g.has(ndev)) {
                        Graph.Edge e = g.edge("rejected_gid_" + gi.index(), port, ndev, "candidate",
                                List.of("gid " + gi.index() + " (" + s.step() + ")"));
                        e.classes.add("dim");
                        e.tooltip = "GID index " + gi.index() + ": " + why;
                    }
                    continue;
                }
                String node = DecisionWalk.nodeOf(c.ref());
                Graph.Node n = g.node(node);
                if (n == null || onWalk.contains(node)) {
                    continue;
                }
                if (!n.classes.contains("dim")) {
                    n.classes.add("dim");
                    n.classes.add("candidate");
                    n.tooltip = why + (n.tooltip == null ? "" : "\n\n" + n.tooltip);
                } else {
                    n.tooltip = why + "\n" + n.tooltip;
                }
            }
        }
    }

    private static void markDisagreement(Graph g, Scene scene, List<Graph.Edge> walkEdges) {
        Decision d = scene.decision();
        Decision other = scene.other();
        int step = Disagreement.step(d, other);
        if (step < 0) {
            return;
        }
        String label = DecisionWalk.stepLabel(d.trace(), step);
        Graph.Edge marked = null;
        for (Graph.Edge e : walkEdges) {
            if (e.label.contains(label)) {
                marked = e;
                break;
            }
        }
        if (marked == null) {
            return;
        }
        String otherMode = other.mode().cliName();
        marked.classes.add("disagree");
        marked.label.add("≠ " + otherMode + " mode");
        Graph.Node note = g.node(NOTE, null, Graph.Kind.NOTE,
                List.of(d.mode().cliName() + " ≠ " + otherMode, "at step " + label));
        note.classes.add("disagree");
        note.tooltip = d.mode().cliName() + " and " + otherMode + " modes disagree at step " + label
                + (scene.hint() == null ? "" : ":\n" + scene.hint());
        Graph.Edge toNote = g.edge(null, NOTE, marked.to, "note", List.of());
        toNote.tooltip = note.tooltip;
        // Where the other mode ended up, when that is another net device of the picture.
        String otherEnd = other.netdev() != null && !other.netdev().equals(d.netdev())
                && g.has(Ids.link(other.netdev())) ? Ids.link(other.netdev()) : null;
        if (otherEnd != null && !otherEnd.equals(marked.to)) {
            Graph.Edge e = g.edge("other_mode", marked.from, otherEnd, "other-mode",
                    List.of(otherMode + " mode goes here"));
            e.tooltip = otherMode + " mode's answer: " + (other.outcome() == Decision.Outcome.DROP ? "DROP, "
                    + other.dropReason() : other.outcome() + " via this device");
            g.node(otherEnd).classes.add("other-mode");
        }
    }
}
