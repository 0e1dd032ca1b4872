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
 */
public record TraceStep(String step, String kernelFunction, String detail, List<String> candidates, String chosen, String why) {
    public TraceStep {
        candidates = List.copyOf(candidates);
    }
}
