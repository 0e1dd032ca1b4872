package io.cmdemux.pathrecord.policy;

import java.util.Objects;

/** One policy rule: a name for traces and metrics, what it matches and what it does. */
public record Rule(String name, Match match, Action action) {
    public Rule {
        Objects.requireNonNull(name, "name");
        match = match == null ? Match.any() : match;
        action = action == null ? Action.none() : action;
    }
}
