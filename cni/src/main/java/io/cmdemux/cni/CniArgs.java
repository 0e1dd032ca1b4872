package io.cmdemux.cni;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * CNI_ARGS, "K1=V1;K2=V2". The keys Kubernetes runtimes send are understood; any other key is an
 * error unless the runtime also set IgnoreUnknown, the CONVENTIONS.md way of saying "these args
 * are for other plugins of the chain" (containerd and CRI-O always do).
 */
record CniArgs(String podNamespace, String podName, String podUid, Map<String, String> ignored) {
    static final Set<String> KNOWN = Set.of("IgnoreUnknown", "K8S_POD_NAMESPACE", "K8S_POD_NAME", "K8S_POD_UID",
            "K8S_POD_INFRA_CONTAINER_ID");

    CniArgs {
        ignored = Map.copyOf(ignored);
    }

    static CniArgs parse(String raw) throws CniError {
        Map<String, String> kv = new LinkedHashMap<>();
        if (raw != null && !raw.isEmpty()) {
            for (String pair : raw.split(";", -1)) {
                if (pair.isEmpty()) {
                    continue;
                }
                int eq = pair.indexOf('=');
                if (eq <= 0) {
                    throw new CniError(CniError.INVALID_ENVIRONMENT, "CNI_ARGS has a malformed pair '" + pair + "'",
                            "CNI_ARGS is KEY=VALUE pairs separated by ';'");
                }
                kv.put(pair.substring(0, eq), pair.substring(eq + 1));
            }
        }
        boolean ignoreUnknown = truthy(kv.get("IgnoreUnknown"));
        Map<String, String> unknown = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : kv.entrySet()) {
            if (!KNOWN.contains(e.getKey())) {
                unknown.put(e.getKey(), e.getValue());
            }
        }
        if (!unknown.isEmpty() && !ignoreUnknown) {
            throw new CniError(CniError.INVALID_ENVIRONMENT, "CNI_ARGS has unknown key(s) "
                    + String.join(", ", unknown.keySet()),
                    "cmdemux-cni understands " + String.join(", ", KNOWN.stream().sorted().toList())
                            + "; add IgnoreUnknown=1 to CNI_ARGS to pass other keys through the chain");
        }
        return new CniArgs(blankToNull(kv.get("K8S_POD_NAMESPACE")), blankToNull(kv.get("K8S_POD_NAME")),
                blankToNull(kv.get("K8S_POD_UID")), unknown);
    }

    /** libcni's UnmarshallableBool: "1" and "true" (any case) are true, everything else false. */
    private static boolean truthy(String v) {
        return v != null && (v.equals("1") || v.equalsIgnoreCase("true"));
    }

    private static String blankToNull(String s) {
        return s == null || s.isEmpty() ? null : s;
    }
}
