package io.cmdemux.cni;

import com.fasterxml.jackson.databind.JsonNode;
import io.cmdemux.gid.GidType;
import io.cmdemux.gid.SoftPortSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The "rdma" object of the plugin's configuration (README, "cmdemux-cni configuration").
 *
 * @param required false: problems are logged to stderr and ADD/CHECK pass anyway
 * @param gidType the GID type the pod's RDMA CM traffic uses (RoCE v2 unless "v1")
 * @param gidWait how long ADD and CHECK wait for missing GIDs before answering 11 (try again later)
 * @param softPorts soft RoCE ports to compute tables for when the daemon is down; the running
 *     daemon uses its own --rdma-port list instead
 */
record RdmaSettings(boolean required, GidType gidType, Duration gidWait, List<SoftPortSpec> softPorts) {
    static final Duration DEFAULT_WAIT = Duration.ofMillis(2000);
    static final long MAX_WAIT_MILLIS = 60_000;

    RdmaSettings {
        softPorts = List.copyOf(softPorts);
    }

    static RdmaSettings defaults() {
        return new RdmaSettings(true, GidType.ROCE_V2, DEFAULT_WAIT, List.of());
    }

    static RdmaSettings parse(JsonNode rdma) throws CniError {
        if (rdma == null || rdma.isMissingNode() || rdma.isNull()) {
            return defaults();
        }
        if (!rdma.isObject()) {
            throw invalid("\"rdma\" must be an object", "e.g. \"rdma\": {\"required\": true, \"gidType\": \"v2\"}");
        }
        boolean required = true;
        JsonNode r = rdma.get("required");
        if (r != null) {
            if (!r.isBoolean()) {
                throw invalid("\"rdma.required\" must be true or false",
                        "false makes RDMA problems warnings instead of errors");
            }
            required = r.booleanValue();
        }
        GidType type = GidType.ROCE_V2;
        JsonNode t = rdma.get("gidType");
        if (t != null) {
            String s = t.isTextual() ? t.asText().trim().toLowerCase() : "";
            if (s.equals("v1") || s.equals("roce v1")) {
                type = GidType.ROCE_V1;
            } else if (!s.equals("v2") && !s.equals("roce v2")) {
                throw invalid("\"rdma.gidType\" must be \"v1\" or \"v2\", not " + t,
                        "RoCE v2 (UDP/IP) is what rdma_cm uses by default");
            }
        }
        Duration wait = DEFAULT_WAIT;
        JsonNode w = rdma.get("waitMillis");
        if (w != null) {
            if (!w.isIntegralNumber() || w.asLong() < 0 || w.asLong() > MAX_WAIT_MILLIS) {
                throw invalid("\"rdma.waitMillis\" must be a whole number from 0 to " + MAX_WAIT_MILLIS,
                        "the default is " + DEFAULT_WAIT.toMillis());
            }
            wait = Duration.ofMillis(w.asLong());
        }
        List<SoftPortSpec> ports = new ArrayList<>();
        JsonNode p = rdma.get("softPorts");
        if (p != null) {
            if (!p.isArray()) {
                throw invalid("\"rdma.softPorts\" must be an array of \"NAME=NETDEV[@NETNS][:v1,v2]\"",
                        "the same form as serve's --rdma-port");
            }
            for (JsonNode e : p) {
                if (!e.isTextual()) {
                    throw invalid("\"rdma.softPorts\" holds a non-string " + e,
                            "each entry is \"NAME=NETDEV[@NETNS][:v1,v2]\"");
                }
                try {
                    ports.add(SoftPortSpec.parse(e.asText()));
                } catch (IllegalArgumentException ex) {
                    throw invalid("\"rdma.softPorts\": " + ex.getMessage(), "the same form as serve's --rdma-port");
                }
            }
        }
        for (java.util.Iterator<String> it = rdma.fieldNames(); it.hasNext();) {
            String f = it.next();
            if (!List.of("required", "gidType", "waitMillis", "softPorts").contains(f)) {
                throw new CniError(CniError.UNSUPPORTED_FIELD, "unsupported field \"rdma." + f + "\": " + rdma.get(f),
                        "\"rdma\" knows required, gidType, waitMillis and softPorts");
            }
        }
        return new RdmaSettings(required, type, wait, ports);
    }

    private static CniError invalid(String msg, String details) {
        return new CniError(CniError.INVALID_CONFIG, msg, details);
    }
}
