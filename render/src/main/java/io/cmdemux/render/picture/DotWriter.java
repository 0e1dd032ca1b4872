package io.cmdemux.render.picture;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A {@link Graph} as Graphviz DOT. Looks follow from a node's kind and classes, so the same
 * classes reach the SVG ({@code class="node link walk"}) for stylesheets and tests. Every string
 * goes through {@link DotText}; ids are {@link Ids}' ASCII-only names.
 */
public final class DotWriter {
    private static final String FONT = "Helvetica,Arial,sans-serif";
    private static final String WALK = "#1f5fbf";
    private static final String WALK_FILL = "#dce8fb";
    private static final String DIM = "#a0a0a0";
    private static final String DISAGREE = "#d62728";

    private DotWriter() {}

    public static String write(Graph g) {
        StringBuilder sb = new StringBuilder();
        sb.append("digraph cmdemux {\n");
        sb.append("  graph [rankdir=LR, newrank=true, nodesep=0.25, ranksep=0.6, fontname=").append(DotText.quote(FONT))
                .append(", fontsize=11, labelloc=b, labeljust=l");
        if (!g.caption().isEmpty()) {
            sb.append(", label=").append(DotText.quoteLines(g.caption()));
        }
        sb.append("];\n");
        sb.append("  node [fontname=").append(DotText.quote(FONT))
                .append(", fontsize=10, shape=box, style=rounded, margin=\"0.12,0.05\"];\n");
        sb.append("  edge [fontname=").append(DotText.quote(FONT))
                .append(", fontsize=9, color=\"#555555\", fontcolor=\"#555555\"];\n");
        Map<String, List<Graph.Node>> byCluster = new LinkedHashMap<>();
        for (Graph.Cluster c : g.clusters()) {
            byCluster.put(c.id, new ArrayList<>());
        }
        List<Graph.Node> top = new ArrayList<>();
        for (Graph.Node n : g.nodes()) {
            List<Graph.Node> in = n.cluster == null ? null : byCluster.get(n.cluster);
            (in == null ? top : in).add(n);
        }
        for (Graph.Cluster c : g.clusters()) {
            sb.append("  subgraph ").append(c.id).append(" {\n");
            sb.append("    id=").append(DotText.quote(c.id)).append("; class=\"netns-cluster\"; style=rounded;"
                    + " color=\"#888888\";")
                    .append(" fontsize=10; labelloc=t; label=").append(DotText.quoteLines(c.label)).append(";");
            if (c.tooltip != null) {
                sb.append(" tooltip=").append(DotText.quoteTooltip(c.tooltip)).append(";");
            }
            sb.append('\n');
            for (Graph.Node n : byCluster.get(c.id)) {
                node(sb, "    ", n);
            }
            sb.append("  }\n");
        }
        for (Graph.Node n : top) {
            node(sb, "  ", n);
        }
        for (Graph.Edge e : g.edges()) {
            edge(sb, e);
        }
        sb.append("}\n");
        return sb.toString();
    }

    private static void node(StringBuilder sb, String indent, Graph.Node n) {
        Map<String, String> a = new LinkedHashMap<>();
        Set<String> style = new LinkedHashSet<>();
        switch (n.kind) {
            case NAMESPACE:
                a.put("shape", "folder");
                a.put("fillcolor", "\"#f3f3f3\"");
                style.add("filled");
                break;
            case RDMA_DEVICE:
                a.put("shape", "box3d");
                break;
            case RDMA_PORT:
                a.put("shape", "component");
                break;
            case LISTENER:
                a.put("shape", "cds");
                break;
            case REQUEST:
                a.put("shape", "rarrow");
                break;
            case OUTCOME:
                a.put("shape", "octagon");
                break;
            case NOTE:
                a.put("shape", "note");
                break;
            default:
                style.add("rounded");
        }
        if (n.classes.contains("down") || n.classes.contains("context")) {
            a.put("color", "\"#888888\"");
            a.put("fontcolor", "\"#666666\"");
            style.add("dashed");
        }
        if (n.classes.contains("dim")) {
            a.put("color", q(DIM));
            a.put("fontcolor", q(DIM));
            style.add("dashed");
        }
        if (n.classes.contains("walk")) {
            a.put("color", q(WALK));
            a.put("penwidth", "2.5");
            a.put("fillcolor", q(WALK_FILL));
            style.add("filled");
            style.remove("dashed");
        }
        if (n.classes.contains("rejected") || n.classes.contains("disagree")) {
            a.put("color", q(DISAGREE));
            a.put("fontcolor", q(DISAGREE));
            a.put("penwidth", "2");
        }
        sb.append(indent).append(n.id).append(" [id=").append(DotText.quote(n.id)).append(", class=")
                .append(DotText.quote(String.join(" ", n.classes))).append(", label=")
                .append(DotText.quoteLines(n.label));
        if (!style.isEmpty()) {
            sb.append(", style=").append(DotText.quote(String.join(",", style)));
        }
        a.forEach((k, v) -> sb.append(", ").append(k).append('=').append(v));
        if (n.tooltip != null) {
            sb.append(", tooltip=").append(DotText.quoteTooltip(n.tooltip));
        }
        sb.append("];\n");
    }

    private static void edge(StringBuilder sb, Graph.Edge e) {
        Map<String, String> a = new LinkedHashMap<>();
        Set<String> style = new LinkedHashSet<>();
        if (e.classes.contains("veth-peer")) {
            style.add("dashed");
        }
        if (e.classes.contains("gid")) {
            a.put("color", "\"#2e7d32\"");
            a.put("fontcolor", "\"#2e7d32\"");
        }
        if (e.classes.contains("cross-netns")) {
            a.put("color", "\"#7b3fbf\"");
            style.add("bold");
        }
        if (e.classes.contains("active-slave")) {
            a.put("penwidth", "2.5");
        }
        if (e.classes.contains("has-port")) {
            a.put("arrowhead", "none");
        }
        if (e.classes.contains("dim")) {
            a.put("color", q(DIM));
            a.put("fontcolor", q(DIM));
            style.add("dashed");
        }
        if (e.classes.contains("walk")) {
            a.put("color", q(WALK));
            a.put("fontcolor", q(WALK));
            a.put("penwidth", "3");
            a.put("weight", "4");
        }
        if (e.classes.contains("disagree") || e.classes.contains("other-mode")) {
            a.put("color", q(DISAGREE));
            a.put("fontcolor", q(DISAGREE));
        }
        if (e.classes.contains("other-mode")) {
            style.add("dashed");
            a.put("constraint", "false");
        }
        if (e.classes.contains("note")) {
            style.add("dotted");
            a.put("arrowhead", "none");
            a.put("constraint", "false");
        }
        if (!e.directed) {
            a.put("dir", "none");
        }
        sb.append("  ").append(e.from).append(" -> ").append(e.to).append(" [id=").append(DotText.quote(e.id))
                .append(", class=")
                .append(DotText.quote(String.join(" ", e.classes)));
        if (!e.label.isEmpty()) {
            sb.append(", label=").append(DotText.quoteLines(e.label));
        }
        if (!style.isEmpty()) {
            sb.append(", style=").append(DotText.quote(String.join(",", style)));
        }
        a.forEach((k, v) -> sb.append(", ").append(k).append('=').append(v));
        if (e.tooltip != null) {
            sb.append(", tooltip=").append(DotText.quoteTooltip(e.tooltip)).append(", labeltooltip=")
                    .append(DotText.quoteTooltip(e.tooltip));
        }
        sb.append("];\n");
    }

    private static String q(String s) {
        return DotText.quote(s);
    }
}
