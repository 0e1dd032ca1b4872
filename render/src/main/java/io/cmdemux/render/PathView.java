package io.cmdemux.render;

import io.cmdemux.pathrecord.PathRecordService;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cmdemux.pathrecord.Answer;
import io.cmdemux.pathrecord.PathCache;
import io.cmdemux.pathrecord.PathFlags;
import io.cmdemux.pathrecord.PathRecord;
import io.cmdemux.pathrecord.PathRecordData;
import io.cmdemux.pathrecord.PathResolver;
import io.cmdemux.pathrecord.Responder;
import io.cmdemux.pathrecord.ls.PathUse;
import io.cmdemux.pathrecord.policy.IbRate;
import io.cmdemux.pathrecord.sa.SaClient;
import io.cmdemux.pathrecord.sa.SaPathSource;
import io.cmdemux.pathrecord.source.FallbackSource;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** How `path query` and `path stats` print: a table for people, JSON for machines. */
public final class PathView {
    public static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private PathView() {}

    /**
     * The records the responder would send for {@code use}, and why. MTU, rate and packet
     * lifetime are IBTA enum values.
     */
    public static ObjectNode answerJson(PathResolver.Result res, PathUse use) {
        Answer a = res.answer();
        ObjectNode o = F.objectNode();
        ArrayNode recs = o.putArray("records");
        for (PathRecordData d : records(a, use)) {
            recs.add(recordJson(d));
        }
        o.put("rule", a.ruleName());
        o.put("source", res.source());
        o.put("answer", kind(a.kind()));
        o.put("pathUse", use.cliName());
        o.put("netns", a.origin() == null ? null : a.origin().netnsText());
        o.put("netdev", a.origin() == null ? null : a.origin().netdev());
        o.put("detail", a.detail());
        return o;
    }

    static List<PathRecordData> records(Answer a, PathUse use) {
        return a.kind() == Answer.Kind.PATHS ? a.paths().records(use) : List.of();
    }

    public static String kind(Answer.Kind k) {
        return k.name().toLowerCase().replace('_', '-');
    }

    static ObjectNode recordJson(PathRecordData d) {
        PathRecord r = d.record();
        ObjectNode o = F.objectNode();
        ArrayNode flags = o.putArray("flags");
        PathFlags.names(d.flags()).forEach(flags::add);
        o.put("dgid", r.dgid().toString());
        o.put("sgid", r.sgid().toString());
        o.put("dlid", r.dlid());
        o.put("slid", r.slid());
        o.put("pkey", String.format("0x%04x", r.pkey()));
        o.put("sl", r.sl());
        o.put("mtu", r.mtu());
        o.put("rate", r.rate());
        o.put("packetLifetime", r.packetLifeTime());
        o.put("mtuSelector", r.mtuSelector());
        o.put("rateSelector", r.rateSelector());
        o.put("packetLifetimeSelector", r.packetLifeTimeSelector());
        o.put("serviceId", String.format("0x%016x", r.serviceId()));
        o.put("tclass", r.tclass());
        o.put("qosClass", r.qosClass());
        o.put("hopLimit", r.hopLimit());
        o.put("flowLabel", r.flowLabel());
        o.put("reversible", r.reversible());
        o.put("numbPath", r.numbPath());
        o.put("preference", r.preference());
        o.put("rawTraffic", r.rawTraffic());
        return o;
    }

    public static String answerText(PathResolver.Result res, PathUse use) {
        Answer a = res.answer();
        StringBuilder sb = new StringBuilder();
        sb.append("answer ").append(kind(a.kind())).append(", source ").append(res.source()).append(", rule ")
                .append(a.ruleName() == null ? "(none)" : a.ruleName()).append(", path use ").append(use.cliName());
        if (a.origin() != null) {
            sb.append(", netns ").append(a.origin().known() ? a.origin().netnsText() : "(unknown)");
            if (a.origin().netdev() != null) {
                sb.append(" (").append(a.origin().netdev()).append(')');
            }
        }
        sb.append('\n');
        if (a.detail() != null) {
            sb.append(a.detail()).append('\n');
        }
        List<PathRecordData> recs = records(a, use);
        if (!recs.isEmpty()) {
            sb.append(String.format("%-36s %-24s %-24s %6s %6s %-6s %2s %-5s %-10s %s%n", "FLAGS", "DGID", "SGID",
                    "DLID", "SLID", "PKEY", "SL",
                    "MTU", "RATE", "LIFETIME"));
            for (PathRecordData d : recs) {
                PathRecord r = d.record();
                sb.append(String.format("%-36s %-24s %-24s %6d %6d 0x%04x %2d %-5s %-10s %d%n",
                        String.join(",", PathFlags.names(d.flags())), r.dgid(), r.sgid(), r.dlid(), r.slid(), r.pkey(),
                        r.sl(), IbRate.mtuBytes(r.mtu()), IbRate.text(r.rate()), r.packetLifeTime()));
            }
        }
        return sb.toString();
    }

    public static ObjectNode statsJson(PathRecordService s) {
        ObjectNode o = F.objectNode();
        Responder.Stats r = s.responder().stats();
        ObjectNode resp = o.putObject("responder");
        resp.put("state", r.state().name());
        resp.put("detail", r.stateDetail());
        resp.put("received", r.received());
        resp.put("answered", r.answered());
        resp.put("answeredWithRecords", r.answeredWithRecords());
        resp.put("errAnswers", r.errAnswers());
        resp.put("failAnswers", r.failAnswers());
        resp.put("deadlineErrs", r.deadlineErrs());
        resp.put("ignoredNotKernel", r.ignoredNotKernel());
        resp.put("malformed", r.malformed());
        resp.put("reusedSeq", r.reusedSeq());
        resp.put("ipResolve", r.ipResolve());
        resp.put("kernelErrors", r.kernelErrors());
        resp.put("inFlight", r.inFlight());
        ObjectNode lat = o.putObject("latency");
        lat.put("p50Micros", r.p50Nanos() / 1000);
        lat.put("p99Micros", r.p99Nanos() / 1000);
        PathCache.Stats c = s.resolver().cache().stats();
        ObjectNode cache = o.putObject("cache");
        cache.put("hits", c.hits());
        cache.put("misses", c.misses());
        cache.put("flushes", c.flushes());
        cache.put("size", c.size());
        ObjectNode src = o.putObject("source");
        src.put("name", s.source().name());
        src.put("queries", s.resolver().sourceQueries());
        ArrayNode ports = src.putArray("saPorts");
        SaPathSource sa = s.source() instanceof SaPathSource x ? x : null;
        if (sa != null) {
            for (Map.Entry<String, SaClient> e : sa.clients().entrySet()) {
                ObjectNode p = ports.addObject();
                p.put("port", e.getKey());
                p.put("sent", e.getValue().sent());
                p.put("answered", e.getValue().answered());
                p.put("timedOut", e.getValue().timedOut());
                p.put("refused", e.getValue().refused());
                p.put("outstanding", e.getValue().outstanding());
            }
        } else if (s.source() instanceof FallbackSource) {
            src.put("fallback", true);
        }
        o.put("policyGeneration", s.resolver().policy().generation());
        o.put("writtenAt", Instant.now().toString());
        return o;
    }

    public static String statsText(JsonNode s) {
        JsonNode r = s.path("responder");
        JsonNode c = s.path("cache");
        JsonNode l = s.path("latency");
        long hits = c.path("hits").asLong();
        long misses = c.path("misses").asLong();
        StringBuilder sb = new StringBuilder();
        sb.append("responder  ").append(r.path("state").asText()).append(": ").append(r.path("detail").asText())
                .append('\n');
        sb.append(String.format("queries    %d received, %d answered (%d with records, %d F_ERR, %d failed,"
                + " %d past the deadline), %d malformed, %d not from the kernel%n",
                r.path("received").asLong(), r.path("answered").asLong(), r.path("answeredWithRecords").asLong(),
                r.path("errAnswers").asLong(), r.path("failAnswers").asLong(), r.path("deadlineErrs").asLong(),
                r.path("malformed").asLong(), r.path("ignoredNotKernel").asLong()));
        sb.append(String.format("cache      %d hits, %d misses (%.1f%% hits), %d entries, %d flushes%n", hits, misses,
                hits + misses == 0 ? 0.0 : 100.0 * hits / (hits + misses), c.path("size").asLong(),
                        c.path("flushes").asLong()));
        sb.append(String.format("latency    p50 %d µs, p99 %d µs (request to answer, power-of-two buckets)%n",
                l.path("p50Micros").asLong(), l.path("p99Micros").asLong()));
        sb.append(String.format("source     %s, %d queries%n", s.path("source").path("name").asText(),
                s.path("source").path("queries").asLong()));
        for (JsonNode p : s.path("source").path("saPorts")) {
            sb.append(String.format("  sa %-12s %d sent, %d answered, %d timed out, %d refused, %d outstanding%n",
                    p.path("port").asText(), p.path("sent").asLong(), p.path("answered").asLong(),
                    p.path("timedOut").asLong(), p.path("refused").asLong(), p.path("outstanding").asLong()));
        }
        sb.append("written    ").append(s.path("writtenAt").asText()).append('\n');
        return sb.toString();
    }
}
