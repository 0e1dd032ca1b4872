package io.cmdemux.pathrecord.policy;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The policy file: JSON, documented in docs/PATHRECORD.md.
 * <pre>
 * {"rules": [
 *   {"name": "podA-gold",
 *    "match": {"netns": ["podA"], "netdev": ["ib0.8001"], "device": "mlx5_0", "port": 1,
 *              "tclass": [0, 63], "serviceId": ["0x1060000", "0x106ffff"], "qosClass": 5},
 *    "action": {"sl": 3 | {"set": 3} | {"max": 3}, "mtu": {"max": 4}, "rate": {"max": 7},
 *               "pkey": "0x8001", "alternate": true, "directional": true, "deny": true, "fail": true}}]}
 * </pre>
 * Numbers may be JSON integers or strings in decimal or 0x-hex; a range is [lo, hi] or one value.
 * Unknown keys are errors, so that a typo cannot silently widen a rule.
 */
public final class PolicyFile {
    private static final ObjectMapper JSON = new ObjectMapper();

    private PolicyFile() {}

    public static Policy parse(String text, long generation) {
        JsonNode root;
        try {
            root = JSON.readTree(text);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("policy is not JSON: " + e.getOriginalMessage() + " at line "
                    + e.getLocation().getLineNr());
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException("policy must be a JSON object with \"rules\"");
        }
        only(root, "policy", "rules");
        JsonNode rules = root.get("rules");
        List<Rule> out = new ArrayList<>();
        if (rules != null) {
            if (!rules.isArray()) {
                throw new IllegalArgumentException("\"rules\" must be an array");
            }
            Set<String> names = new LinkedHashSet<>();
            for (int i = 0; i < rules.size(); i++) {
                Rule r = rule(rules.get(i), i);
                if (!names.add(r.name())) {
                    throw new IllegalArgumentException("rule name \"" + r.name() + "\" is used twice");
                }
                out.add(r);
            }
        }
        return new Policy(generation, out);
    }

    private static Rule rule(JsonNode n, int i) {
        String where = "rule " + (i + 1);
        if (!n.isObject()) {
            throw new IllegalArgumentException(where + " is not an object");
        }
        only(n, where, "name", "match", "action");
        String name = n.has("name") ? n.get("name").asText() : "rule-" + (i + 1);
        where = "rule \"" + name + "\"";
        Match m = n.has("match") ? match(n.get("match"), where) : Match.any();
        Action a = n.has("action") ? action(n.get("action"), where) : Action.none();
        if (a.deny() && a.fail()) {
            throw new IllegalArgumentException(where + ": \"deny\" and \"fail\" exclude each other");
        }
        return new Rule(name, m, a);
    }

    private static Match match(JsonNode n, String where) {
        only(n, where + " match", "netns", "netdev", "device", "port", "tclass", "serviceId", "qosClass");
        return new Match(
                n.has("netns") ? new LinkedHashSet<>(strings(n.get("netns"))) : null,
                n.has("netdev") ? new LinkedHashSet<>(strings(n.get("netdev"))) : null,
                n.has("device") ? n.get("device").asText() : null,
                n.has("port") ? (int) number(n.get("port"), where + " port", 1, 255) : null,
                n.has("tclass") ? range(n.get("tclass"), where + " tclass", 0xff) : null,
                n.has("serviceId") ? range(n.get("serviceId"), where + " serviceId", -1) : null,
                n.has("qosClass") ? range(n.get("qosClass"), where + " qosClass", 0xfff) : null);
    }

    private static Action action(JsonNode n, String where) {
        only(n, where + " action", "deny", "fail", "sl", "mtu", "rate", "pkey", "alternate", "directional");
        return new Action(
                bool(n, "deny", where), bool(n, "fail", where),
                adjust(n.get("sl"), where + " sl", 15),
                adjust(n.get("mtu"), where + " mtu", 5),
                adjust(n.get("rate"), where + " rate", 63),
                n.has("pkey") ? (int) number(n.get("pkey"), where + " pkey", 1, 0xffff) : null,
                bool(n, "alternate", where), bool(n, "directional", where));
    }

    private static boolean bool(JsonNode n, String key, String where) {
        JsonNode v = n.get(key);
        if (v == null) {
            return false;
        }
        if (!v.isBoolean()) {
            throw new IllegalArgumentException(where + ": \"" + key + "\" must be true or false");
        }
        return v.asBoolean();
    }

    private static Adjust adjust(JsonNode n, String where, int max) {
        if (n == null) {
            return null;
        }
        if (n.isObject()) {
            only(n, where, "set", "max");
            if (n.has("set") == n.has("max")) {
                throw new IllegalArgumentException(where + ": give exactly one of \"set\" and \"max\"");
            }
            return n.has("set")
                    ? Adjust.set((int) number(n.get("set"), where, 0, max))
                    : Adjust.max((int) number(n.get("max"), where, 0, max));
        }
        return Adjust.set((int) number(n, where, 0, max));
    }

    private static Match.Range range(JsonNode n, String where, long max) {
        if (n.isArray()) {
            if (n.size() != 2) {
                throw new IllegalArgumentException(where + ": a range is [lo, hi]");
            }
            long lo = number(n.get(0), where, 0, max);
            long hi = number(n.get(1), where, 0, max);
            if (Long.compareUnsigned(lo, hi) > 0) {
                throw new IllegalArgumentException(where + ": range [" + lo + ", " + hi + "] is empty");
            }
            return new Match.Range(lo, hi);
        }
        long v = number(n, where, 0, max);
        return new Match.Range(v, v);
    }

    /** A number from a JSON integer or a decimal/0x-hex string; max -1 means the whole unsigned 64-bit range. */
    private static long number(JsonNode n, String where, long min, long max) {
        long v;
        if (n.isIntegralNumber() && n.canConvertToLong()) {
            v = n.asLong();
        } else if (n.isTextual()) {
            String s = n.asText().trim();
            try {
                v = s.startsWith("0x") || s.startsWith("0X")
                        ? Long.parseUnsignedLong(s.substring(2), 16)
                        : Long.parseUnsignedLong(s);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(where + ": \"" + s + "\" is not a number");
            }
        } else {
            throw new IllegalArgumentException(where + ": " + n + " is not a number");
        }
        if (max != -1 && (v < min || v > max)) {
            throw new IllegalArgumentException(where + ": " + v + " outside " + min + ".." + max);
        }
        return v;
    }

    private static List<String> strings(JsonNode n) {
        List<String> out = new ArrayList<>();
        if (n.isArray()) {
            n.forEach(e -> out.add(e.asText()));
        } else {
            out.add(n.asText());
        }
        return out;
    }

    private static void only(JsonNode n, String where, String... allowed) {
        Set<String> ok = Set.of(allowed);
        for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
            String k = it.next().getKey();
            if (!ok.contains(k)) {
                throw new IllegalArgumentException(
                        where + ": unknown key \"" + k + "\" (known: " + String.join(", ", allowed) + ")");
            }
        }
    }
}
