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

    /** The error for a runtime: the first permanent problem's code, else 11; every problem in the details. */
    CniError toError() {
        ReadinessProblem first = problems.stream().filter(p -> !p.transientProblem()).findFirst()
                .orElse(problems.get(0));
        List<String> lines = new ArrayList<>();
        for (ReadinessProblem p : problems) {
            lines.add(p.message() + "; fix: " + p.fix());
        }
        return new CniError(first.code(), first.message(), String.join("\n", lines));
    }
}
