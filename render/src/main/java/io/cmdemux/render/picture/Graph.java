package io.cmdemux.render.picture;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A picture before it is written out: clusters (namespaces), nodes and edges, each with the
 * lines of its label, a tooltip and style classes. Built by {@link TopologyGraph}, marked up by
 * {@link DecisionOverlay}, written by {@link DotWriter}; one instance serves one render.
 */
public final class Graph {
    /** A box around the nodes of one namespace. */
    public static final class Cluster {
        public final String id;
        public final List<String> label;
        public String tooltip;

        Cluster(String id, List<String> label) {
            this.id = id;
            this.label = List.copyOf(label);
        }
    }

    /** A node; {@code cluster} is the id of the cluster it sits in, or null for the top level. */
    public static final class Node {
        public final String id;
        public final String cluster;
        public final Kind kind;
        public final List<String> label = new ArrayList<>();
        public final Set<String> classes = new LinkedHashSet<>();
        public String tooltip;

        Node(String id, String cluster, Kind kind, List<String> label) {
            this.id = id;
            this.cluster = cluster;
            this.kind = kind;
            this.label.addAll(label);
            this.classes.add(kind.cssClass);
        }
    }

    /** What a node stands for; it sets the node's shape and its base style class. */
    public enum Kind {
        NAMESPACE("netns"), LINK("link"), RDMA_DEVICE("rdma-device"), RDMA_PORT("rdma-port"), LISTENER("listener"),
        REQUEST("request"), OUTCOME("outcome"), NOTE("note");

        public final String cssClass;

        Kind(String cssClass) {
            this.cssClass = cssClass;
        }
    }

    /** An edge; {@code directed} false for symmetric relations (a veth pair). */
    public static final class Edge {
        public final String id;
        public final String from;
        public final String to;
        public final List<String> label = new ArrayList<>();
        public final Set<String> classes = new LinkedHashSet<>();
        public boolean directed = true;
        public String tooltip;

        Edge(String id, String from, String to, String cssClass, List<String> label) {
            this.id = id;
            this.from = from;
            this.to = to;
            this.label.addAll(label);
            this.classes.add(cssClass);
        }
    }

    private final Map<String, Cluster> clusters = new LinkedHashMap<>();
    private final Map<String, Node> nodes = new LinkedHashMap<>();
    private final List<Edge> edges = new ArrayList<>();
    private final List<String> caption = new ArrayList<>();

    public Cluster cluster(String id, List<String> label) {
        return clusters.computeIfAbsent(id, k -> new Cluster(id, label));
    }

    /** Adds a node, or returns the one with this id. */
    public Node node(String id, String cluster, Kind kind, List<String> label) {
        return nodes.computeIfAbsent(id, k -> new Node(id, cluster, kind, label));
    }

    public Node node(String id) {
        return nodes.get(id);
    }

    public boolean has(String id) {
        return nodes.containsKey(id);
    }

    /** Adds an edge with a generated id ("e" + its number), or its own when {@code id} is not null. */
    public Edge edge(String id, String from, String to, String cssClass, List<String> label) {
        Edge e = new Edge(id != null ? id : "e" + edges.size(), from, to, cssClass, label);
        edges.add(e);
        return e;
    }

    /** Drops the edges that {@code which} picks (a topology edge that a walk edge now stands for). */
    public void removeEdges(java.util.function.Predicate<Edge> which) {
        edges.removeIf(which);
    }

    public Collection<Cluster> clusters() {
        return clusters.values();
    }

    public Collection<Node> nodes() {
        return nodes.values();
    }

    public List<Edge> edges() {
        return edges;
    }

    /** Lines under the whole picture (what it shows, what it left out). */
    public List<String> caption() {
        return caption;
    }
}
