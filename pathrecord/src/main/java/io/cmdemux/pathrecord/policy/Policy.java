package io.cmdemux.pathrecord.policy;

import io.cmdemux.pathrecord.PathQuery;
import java.util.List;

/**
 * The path-record policy: rules in order, the first match decides. Immutable; a reload makes a new
 * one with a higher generation, which is part of every cache key, so nothing decided under an older
 * policy is served again.
 */
public record Policy(long generation, List<Rule> rules) {
    public Policy {
        rules = List.copyOf(rules);
    }

    public static Policy empty() {
        return new Policy(0, List.of());
    }

    /** The first rule that matches, or null: then the source's records go out unchanged. */
    public Rule evaluate(PathQuery q, Origin origin) {
        for (Rule r : rules) {
            if (r.match().matches(q, origin)) {
                return r;
            }
        }
        return null;
    }
}
