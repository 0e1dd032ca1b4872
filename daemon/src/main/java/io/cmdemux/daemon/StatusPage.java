package io.cmdemux.daemon;

import io.cmdemux.dataplane.metrics.Metrics;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;

/**
 * The daemon's status page: one static HTML document (no script at all, so nothing to fetch
 * and nothing to run on an offline host) that reloads itself with a meta refresh. It shows the
 * generations, the last decisions with a link to each one's picture, the live topology as
 * inline SVG, the consumers per namespace and the counters. Pure: a {@link Model} in, HTML out.
 * The markup is also well-formed XML (void elements closed, no named entities but XML's), so it
 * can be checked with any XML parser.
 */
public final class StatusPage {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS", Locale.ROOT)
            .withZone(ZoneOffset.UTC);

    private StatusPage() {}

    /**
     * One decision's row.
     *
     * @param outcome deliver, reject or drop
     * @param trace the link to its picture
     */
    public record DecisionRow(long seq, long epochMillis, String device, String request, String outcome,
            String namespace, String reason, String trace) {}

    /**
     * One request the kernel received (the observer, issue 18).
     *
     * @param kernel what the kernel did, in expected.tsv's words (deliver:NS, reject:N, drop)
     * @param cmdemux cmdemux's kernel-mode decision in the same words, or "" when there was nothing to ask
     * @param agreement agree, DISAGREE, or "" when there was nothing to compare
     */
    public record KernelRow(long seq, long epochMillis, String port, String comm, String kernel, String pods,
            String cmdemux, String agreement) {}

    /**
     * The observer's part of the page.
     *
     * @param state observing DIR, off: why, stopped: why
     * @param skips skipped lines and events, with their reasons, or ""
     */
    public record KernelSection(String state, long total, long disagreements, String skips, List<KernelRow> rows) {}

    /** One namespace's row. */
    public record NamespaceRow(String names, long inode, int consumers, int listeners, boolean served) {}

    /**
     * Everything the page shows.
     *
     * @param topologySvg the picture, inline-ready (no XML declaration), or null
     * @param topologyNote why there is no picture, or a remark on it; null for none
     */
    public record Model(String hostName, Instant now, int refreshSeconds, long topologyGeneration, long rdmaGeneration,
            long listenerGeneration, long decisionsTotal, List<DecisionRow> decisions, String topologySvg,
            String topologyNote, List<NamespaceRow> namespaces, List<Metrics.Reading> counters, KernelSection kernel) {}

    public static String render(Model m) {
        StringBuilder sb = new StringBuilder(16_384 + (m.topologySvg() == null ? 0 : m.topologySvg().length()));
        sb.append("<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n")
                .append("<meta charset=\"utf-8\" />\n")
                .append("<meta http-equiv=\"refresh\" content=\"").append(m.refreshSeconds()).append("\" />\n")
                .append("<title>cmdemux on ").append(Html.text(m.hostName())).append("</title>\n")
                .append("<style>").append(STYLE).append("</style>\n</head>\n<body>\n");
        sb.append("<h1>cmdemux on ").append(Html.text(m.hostName())).append("</h1>\n");
        sb.append("<p class=\"meta\">topology generation <b id=\"topology-generation\">").append(m.topologyGeneration())
                .append("</b> · RDMA generation <b id=\"rdma-generation\">").append(m.rdmaGeneration())
                .append("</b> · listener generation <b id=\"listener-generation\">").append(m.listenerGeneration())
                .append("</b> · ").append(TIME.format(m.now())).append(" UTC · reloads every ")
                .append(m.refreshSeconds())
                .append(" s · <a href=\"/metrics\">/metrics</a> · <a href=\"/topology.svg\">topology.svg</a></p>\n");
        decisions(sb, m);
        kernel(sb, m.kernel());
        topology(sb, m);
        namespaces(sb, m);
        counters(sb, m);
        sb.append("</body>\n</html>\n");
        return sb.toString();
    }

    private static void decisions(StringBuilder sb, Model m) {
        sb.append("<section id=\"decisions\">\n<h2>Last ").append(m.decisions().size()).append(" decisions")
                .append(" <small>(").append(m.decisionsTotal()).append(" since start)</small></h2>\n");
        if (m.decisions().isEmpty()) {
            sb.append("<p class=\"empty\">No connection request yet.</p>\n");
        }
        sb.append("<table id=\"decisions-table\">\n<thead><tr><th>#</th><th>time"
                + " (UTC)</th><th>port</th><th>request</th><th>outcome</th>")
                .append("<th>namespace</th><th>reason</th><th>trace</th></tr></thead>\n<tbody>\n");
        for (DecisionRow r : m.decisions()) {
            sb.append("<tr class=\"decision ").append(Html.text(r.outcome())).append("\" data-seq=\"").append(r.seq())
                    .append("\">")
                    .append("<td>").append(r.seq()).append("</td>")
                    .append("<td>").append(TIME.format(Instant.ofEpochMilli(r.epochMillis()))).append("</td>")
                    .append("<td>").append(Html.text(r.device())).append("</td>")
                    .append("<td>").append(Html.text(r.request())).append("</td>")
                    .append("<td class=\"outcome\">").append(Html.text(r.outcome())).append("</td>")
                    .append("<td class=\"namespace\">").append(Html.text(r.namespace())).append("</td>")
                    .append("<td class=\"reason\">").append(Html.text(r.reason())).append("</td>")
                    .append("<td><a class=\"trace\" href=\"").append(Html.text(r.trace()))
                    .append("\">trace</a></td></tr>\n");
        }
        sb.append("</tbody>\n</table>\n</section>\n");
    }

    private static void kernel(StringBuilder sb, KernelSection k) {
        sb.append("<section id=\"kernel\">\n<h2>The kernel's own decisions <small>(").append(k.total())
                .append(" requests, <span id=\"kernel-disagreements\">").append(k.disagreements())
                .append("</span> disagreements)</small></h2>\n<p class=\"meta\" id=\"kernel-state\">observer ")
                .append(Html.text(k.state())).append("</p>\n");
        if (!k.skips().isEmpty()) {
            sb.append("<p class=\"note\">skipped: ").append(Html.text(k.skips())).append("</p>\n");
        }
        if (k.rows().isEmpty()) {
            sb.append("<p class=\"empty\">No request seen by the kernel yet.</p>\n");
            sb.append("</section>\n");
            return;
        }
        sb.append("<table id=\"kernel-table\">\n<thead><tr><th>#</th><th>time (UTC)</th><th>port</th><th>comm</th>"
                + "<th>kernel</th><th>pods</th><th>cmdemux</th><th>agreement</th></tr></thead>\n<tbody>\n");
        for (KernelRow r : k.rows()) {
            String cls = r.agreement().equals("DISAGREE") ? "disagree" : r.agreement().equals("agree") ? "agree" : "";
            sb.append("<tr class=\"kernel-decision ").append(cls).append("\" data-seq=\"").append(r.seq())
                    .append("\"><td>").append(r.seq()).append("</td>")
                    .append("<td>").append(TIME.format(Instant.ofEpochMilli(r.epochMillis()))).append("</td>")
                    .append("<td>").append(Html.text(r.port())).append("</td>")
                    .append("<td>").append(Html.text(r.comm())).append("</td>")
                    .append("<td class=\"outcome\">").append(Html.text(r.kernel())).append("</td>")
                    .append("<td>").append(Html.text(r.pods())).append("</td>")
                    .append("<td>").append(Html.text(r.cmdemux())).append("</td>")
                    .append("<td class=\"agreement\">").append(Html.text(r.agreement())).append("</td></tr>\n");
        }
        sb.append("</tbody>\n</table>\n</section>\n");
    }

    private static void topology(StringBuilder sb, Model m) {
        sb.append("<section id=\"topology\">\n<h2>Topology</h2>\n");
        if (m.topologyNote() != null) {
            sb.append("<p class=\"note\">").append(Html.text(m.topologyNote())).append("</p>\n");
        }
        if (m.topologySvg() != null) {
            // Graphviz's own SVG: it escaped every label, and Graphviz's input was escaped by DotText.
            sb.append("<div class=\"picture\">\n").append(m.topologySvg()).append("\n</div>\n");
        }
        sb.append("</section>\n");
    }

    private static void namespaces(StringBuilder sb, Model m) {
        sb.append("<section id=\"consumers\">\n<h2>Consumers per namespace</h2>\n<table id=\"consumers-table\">\n")
                .append("<thead><tr><th>namespace</th><th>inode</th><th>consumers</th><th>listeners</th><th>@cmdemux"
                        + " socket</th></tr></thead>\n<tbody>\n");
        for (NamespaceRow r : m.namespaces()) {
            sb.append("<tr><td>").append(Html.text(r.names())).append("</td><td>").append(r.inode()).append("</td><td>")
                    .append(r.consumers())
                    .append("</td><td>").append(r.listeners()).append("</td><td>").append(r.served() ? "yes" : "no")
                    .append("</td></tr>\n");
        }
        sb.append("</tbody>\n</table>\n</section>\n");
    }

    private static void counters(StringBuilder sb, Model m) {
        sb.append("<section id=\"counters\">\n<h2>Counters</h2>\n<table id=\"counters-table\">\n")
                .append("<thead><tr><th>meter</th><th>tags</th><th>value</th></tr></thead>\n<tbody>\n");
        for (Metrics.Reading r : m.counters()) {
            double v = r.value();
            String value = v == Math.rint(v) && !Double.isInfinite(v) ? Long.toString((long) v)
                    : String.format(Locale.ROOT, "%.3f", v);
            sb.append("<tr><td>").append(Html.text(r.name())).append("</td><td>").append(Html.text(r.tags()))
                    .append("</td><td>")
                    .append(value).append("</td></tr>\n");
        }
        sb.append("</tbody>\n</table>\n</section>\n");
    }

    private static final String STYLE = "body{font:14px/1.4 system-ui,sans-serif;margin:1em 2em;color:#222}"
            + "h1{font-size:1.4em;margin:.2em 0}h2{font-size:1.15em;margin:1.2em 0 .4em}"
            + "table{border-collapse:collapse}"
            + "th,td{border-bottom:1px solid #ddd;padding:2px 8px;text-align:left;vertical-align:top}"
            + "th{background:#f3f3f3}.meta{color:#555}"
            + "tr.deliver .outcome{color:#1b7a1b}tr.reject .outcome{color:#c62828}"
            + "tr.drop .outcome{color:#8a6d00}td.reason{max-width:40em}"
            + ".picture{overflow:auto;border:1px solid #ddd;max-height:80vh}"
            + ".note{color:#8a6d00}.empty{color:#777}tr.disagree .agreement{color:#c62828;font-weight:bold}";
}
