package io.cmdemux.ingress.resolve;

import java.util.List;

/**
 * One step of a decision's walk.
 *
 * @param step a short name ("gid-match", "ipoib-l2", "validate-net-dev", ...)
 * @param kernelFunction the kernel function the step mirrors, or the netstack path it follows
 * @param detail the inputs the step looked at
 * @param candidates what it chose among
 * @param chosen what it chose, or null when nothing
 * @param why the reason, in the kernel's terms
 * @param at where the walk stands after this step, or null for a step that only checks (the walk
 *     stays where it was) or that found nothing
 * @param options the candidates as references, with why each was not taken; only those that are
 *     part of the topology (a P_Key table entry is not), so it may be shorter than {@code candidates}
 */
public record TraceStep(
        String step,
        String kernelFunction,
        String detail,
        List<String> candidates,
        String chosen,
        String why,
        TraceRef at,
        List<TraceCandidate> options) {
    public TraceStep {
        candidates = List.copyOf(candidates);
        options = options == null ? List.of() : List.copyOf(options);
    }

    /** A step that points at nothing in the topology. */
    public TraceStep(
            String step, String kernelFunction, String detail, List<String> candidates, String chosen, String why) {
        this(step, kernelFunction, detail, candidates, chosen, why, null, List.of());
    }
}
