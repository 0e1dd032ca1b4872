package io.cmdemux.cni;

import io.cmdemux.pods.Attachment;
import java.util.ArrayList;
import java.util.List;

/** The result of the checks: the interfaces that are ready, and why the others are not. */
record ReadinessReport(List<Attachment> ready, List<ReadinessProblem> problems) {
    ReadinessReport {
        ready = List.copyOf(ready);
        problems = List.copyOf(problems);
    }

    boolean ok() {
        return problems.isEmpty();
    }

    /** Only transient problems: worth waiting for. */
    boolean converging() {
        return !problems.isEmpty() && problems.stream().allMatch(ReadinessProblem::transientProblem);
    }

    /**
     * The error for a runtime: the first permanent problem's code, else 11, and its message; the details
     * start with that code and the fix, then every other problem with its own fix. Runtimes built on libcni
     * (podman, containerd, CRI-O) show only "msg; details", without the code, so the details carry it, and
     * they do not repeat the message.
     */
    CniError toError() {
        ReadinessProblem first = problems.stream().filter(p -> !p.transientProblem()).findFirst()
                .orElse(problems.get(0));
        List<String> lines = new ArrayList<>();
        lines.add("cmdemux-cni error " + first.code() + "; fix: " + first.fix());
        for (ReadinessProblem p : problems) {
            if (p != first) {
                lines.add(p.message() + "; fix: " + p.fix());
            }
        }
        return new CniError(first.code(), first.message(), String.join("\n", lines));
    }
}
