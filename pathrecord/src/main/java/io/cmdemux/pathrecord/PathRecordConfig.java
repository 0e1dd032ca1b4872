package io.cmdemux.pathrecord;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cmdemux.gid.Gid;
import io.cmdemux.netdev.InetAddresses;
import io.cmdemux.pathrecord.ls.Ls;
import io.cmdemux.pathrecord.sa.SaClient;
import java.net.InetAddress;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Every setting of the path-record service, with its default, its JSON name and its check (all
 * checked here, at start-up). JSON keys, documented in docs/PATHRECORD.md:
 * <pre>
 * kernelTimeoutMs      2000      SET_TIMEOUT for the kernel, 100..200000 (sa_query.c IB_SA_LOCAL_SVC_TIMEOUT_*)
 * source               "auto"    "sa", "static", or "auto": the SA, and the static file when the SA cannot be asked
 * staticFile           null      an OpenSM dump_pr "full" PathRecord dump
 * staticPacketLifetime 18        packet lifetime of static records (OpenSM's default subnet timeout), 0..63
 * sa.timeoutMs         200       per try, 1..60000
 * sa.retries           2         0..20
 * sa.maxOutstanding    64        SA queries in flight per port, 1..4096
 * cache.maxEntries     100000    answers kept, 1..10000000
 * cache.ttlSeconds     300       longest life of an answer, 1..86400
 * cache.ttlPacketLifetimes 0     0, or also expire after this many packet lifetimes of the records, 0..1000000
 * policyFile           null      the policy (docs/PATHRECORD.md); none: records go out as the source gave them
 * ipToGid              {}        answers for IP_RESOLVE: IP address → GID
 * statsFile            "/run/cmdemux/path-stats.json"  where `path serve` writes what `path stats` prints
 * </pre>
 */
public record PathRecordConfig(
        int kernelTimeoutMs,
        String source,
        Path staticFile,
        int staticPacketLifetime,
        SaClient.Settings sa,
        long cacheMaxEntries,
        Duration cacheTtl,
        int cacheTtlPacketLifetimes,
        Path policyFile,
        Map<InetAddress, Gid> ipToGid,
        Path statsFile) {

    public static final Set<String> SOURCES = Set.of("auto", "sa", "static");

    public PathRecordConfig {
        if (kernelTimeoutMs < Ls.TIMEOUT_MIN_MS || kernelTimeoutMs > Ls.TIMEOUT_MAX_MS) {
            throw new IllegalArgumentException(
                    "kernelTimeoutMs " + kernelTimeoutMs + " outside " + Ls.TIMEOUT_MIN_MS + ".." + Ls.TIMEOUT_MAX_MS);
        }
        if (!SOURCES.contains(source)) {
            throw new IllegalArgumentException("source \"" + source + "\" is not auto, sa or static");
        }
        if (source.equals("static") && staticFile == null) {
            throw new IllegalArgumentException("source \"static\" needs staticFile (a dump_pr path-record dump)");
        }
        if (staticPacketLifetime < 0 || staticPacketLifetime > 63) {
            throw new IllegalArgumentException("staticPacketLifetime " + staticPacketLifetime + " outside 0..63");
        }
        if (cacheMaxEntries < 1 || cacheMaxEntries > 10_000_000) {
            throw new IllegalArgumentException("cache.maxEntries " + cacheMaxEntries + " outside 1..10000000");
        }
        if (cacheTtl.isNegative() || cacheTtl.isZero() || cacheTtl.compareTo(Duration.ofDays(1)) > 0) {
            throw new IllegalArgumentException("cache.ttlSeconds " + cacheTtl.toSeconds() + " outside 1..86400");
        }
        if (cacheTtlPacketLifetimes < 0 || cacheTtlPacketLifetimes > 1_000_000) {
            throw new IllegalArgumentException(
                    "cache.ttlPacketLifetimes " + cacheTtlPacketLifetimes + " outside 0..1000000");
        }
        ipToGid = Map.copyOf(ipToGid);
    }

    public static PathRecordConfig defaults() {
        return new PathRecordConfig(Ls.TIMEOUT_DEFAULT_MS, "auto", null, 18, SaClient.Settings.defaults(), 100_000,
                Duration.ofMinutes(5), 0, null, Map.of(), Path.of("/run/cmdemux/path-stats.json"));
    }

    public PathRecordConfig withSource(String s, Path file) {
        return new PathRecordConfig(kernelTimeoutMs, s, file != null ? file : staticFile, staticPacketLifetime, sa,
                cacheMaxEntries, cacheTtl, cacheTtlPacketLifetimes, policyFile, ipToGid, statsFile);
    }

    public PathRecordConfig withPolicyFile(Path p) {
        return new PathRecordConfig(kernelTimeoutMs, source, staticFile, staticPacketLifetime, sa, cacheMaxEntries,
                cacheTtl, cacheTtlPacketLifetimes, p, ipToGid, statsFile);
    }

    public PathRecordConfig withStatsFile(Path p) {
        return new PathRecordConfig(kernelTimeoutMs, source, staticFile, staticPacketLifetime, sa, cacheMaxEntries,
                cacheTtl, cacheTtlPacketLifetimes, policyFile, ipToGid, p);
    }

    /** The defaults, overridden by the keys of a JSON config; relative paths are resolved against {@code base}. */
    /**
     * The configuration file {@code file}, paths in it relative to its folder; the defaults when
     * {@code file} is null.
     *
     * @throws IOException when the file cannot be read
     * @throws IllegalArgumentException naming the file, when it is no valid configuration
     */
    public static PathRecordConfig load(Path file) throws IOException {
        if (file == null) {
            return defaults();
        }
        String json = java.nio.file.Files.readString(file);
        try {
            return parse(json, file.toAbsolutePath().getParent());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
        }
    }

    public static PathRecordConfig parse(String json, Path base) {
        JsonNode n;
        try {
            n = new ObjectMapper().readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("config is not JSON: " + e.getOriginalMessage());
        }
        if (n == null || !n.isObject()) {
            throw new IllegalArgumentException("config must be a JSON object");
        }
        only(n, "config", "kernelTimeoutMs", "source", "staticFile", "staticPacketLifetime", "sa", "cache",
                "policyFile", "ipToGid", "statsFile");
        PathRecordConfig d = defaults();
        JsonNode sa = n.path("sa");
        if (!sa.isMissingNode()) {
            only(sa, "sa", "timeoutMs", "retries", "maxOutstanding");
        }
        JsonNode cache = n.path("cache");
        if (!cache.isMissingNode()) {
            only(cache, "cache", "maxEntries", "ttlSeconds", "ttlPacketLifetimes");
        }
        Map<InetAddress, Gid> ip = new LinkedHashMap<>();
        JsonNode map = n.path("ipToGid");
        for (Iterator<Map.Entry<String, JsonNode>> it = map.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            ip.put(InetAddresses.parse(e.getKey()), Gid.parse(e.getValue().asText()));
        }
        return new PathRecordConfig(n.path("kernelTimeoutMs").asInt(d.kernelTimeoutMs()),
                n.path("source").asText(d.source()), path(n.get("staticFile"), base),
                n.path("staticPacketLifetime").asInt(d.staticPacketLifetime()),
                new SaClient.Settings(sa.path("timeoutMs").asInt(d.sa().timeoutMs()),
                        sa.path("retries").asInt(d.sa().retries()),
                        sa.path("maxOutstanding").asInt(d.sa().maxOutstanding())),
                cache.path("maxEntries").asLong(d.cacheMaxEntries()),
                Duration.ofSeconds(cache.path("ttlSeconds").asLong(d.cacheTtl().toSeconds())),
                cache.path("ttlPacketLifetimes").asInt(d.cacheTtlPacketLifetimes()), path(n.get("policyFile"), base),
                ip, n.has("statsFile") ? path(n.get("statsFile"), base) : d.statsFile());
    }

    private static Path path(JsonNode v, Path base) {
        if (v == null || v.isNull()) {
            return null;
        }
        Path p = Path.of(v.asText());
        return p.isAbsolute() || base == null ? p : base.resolve(p);
    }

    private static void only(JsonNode n, String where, String... allowed) {
        Set<String> ok = Set.of(allowed);
        for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (!ok.contains(k)) {
                throw new IllegalArgumentException(
                        where + ": unknown key \"" + k + "\" (known: " + String.join(", ", allowed) + ")");
            }
        }
    }
}
