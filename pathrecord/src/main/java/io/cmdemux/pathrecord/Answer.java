package io.cmdemux.pathrecord;

import io.cmdemux.pathrecord.policy.Origin;
import io.cmdemux.pathrecord.policy.Rule;

/**
 * The outcome for one query, whatever path use asked: what the reply will be built from.
 *
 * @param paths the records when {@code kind} is PATHS, else null
 * @param rule the policy rule that decided, or null when none matched
 * @param source where the records came from: "sa" or "static" ("cache" is added by the caller on a hit)
 * @param detail why there are no records, for logs and the CLI
 */
public record Answer(Kind kind, Paths paths, Rule rule, Origin origin, String source, String detail) {
    public enum Kind {
        /** Records to send. */
        PATHS,
        /** A rule denies: RDMA_NL_LS_F_ERR, so that the kernel asks the SA itself. */
        DENY,
        /** A rule fails the query: a good reply without records, so that the kernel gives up (no fallback). */
        FAIL,
        /** The source has no path: F_ERR too, the kernel's own SA query will say the same. */
        NO_PATH,
        /** The source could not be asked (no SA, timeout, too many outstanding): F_ERR. */
        ERROR
    }

    public static Answer paths(Paths p, Rule rule, Origin origin, String source) {
        return new Answer(Kind.PATHS, p, rule, origin, source, null);
    }

    public static Answer without(Kind kind, Rule rule, Origin origin, String source, String detail) {
        return new Answer(kind, null, rule, origin, source, detail);
    }

    public String ruleName() {
        return rule == null ? null : rule.name();
    }
}
