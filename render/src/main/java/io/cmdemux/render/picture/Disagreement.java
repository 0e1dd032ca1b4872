package io.cmdemux.render.picture;

import io.cmdemux.ingress.resolve.Decision;
import io.cmdemux.ingress.resolve.TraceRef;
import io.cmdemux.ingress.resolve.TraceStep;
import java.util.List;
import java.util.Objects;

/**
 * Where two modes' answers part: the step of one decision's trace that settled what the other
 * decision answers differently. The modes walk different paths even when they agree (the
 * kernel jumps from the GID entry to its ndev, the netstack climbs the uppers), so the paths
 * are not compared; the answers are, in the order the walk settles them: net device, namespace,
 * listener, outcome.
 */
public final class Disagreement {
    private Disagreement() {}

    /** The index into {@code mine.trace()} to mark, or -1 when the answers are the same. */
    public static int step(Decision mine, Decision other) {
        if (mine.sameAnswer(other)) {
            return -1;
        }
        List<TraceStep> trace = mine.trace();
        int last = trace.size() - 1;
        if (!Objects.equals(mine.netdev(), other.netdev())) {
            if (mine.netdev() == null) {
                return last;
            }
            for (int i = 0; i < trace.size(); i++) {
                TraceRef at = trace.get(i).at();
                if (at instanceof TraceRef.Netdev n && n.link().equals(mine.netdev())
                        || at instanceof TraceRef.GidIndex g && mine.netdev().equals(g.ndev())) {
                    return i;
                }
            }
            return last;
        }
        if (!Objects.equals(mine.netns(), other.netns())) {
            return indexOf(trace, TraceRef.Namespace.class, last);
        }
        if (!Objects.equals(mine.listener(), other.listener())) {
            return indexOf(trace, TraceRef.Listen.class, last);
        }
        return last;
    }

    private static int indexOf(List<TraceStep> trace, Class<? extends TraceRef> kind, int otherwise) {
        for (int i = 0; i < trace.size(); i++) {
            if (kind.isInstance(trace.get(i).at())) {
                return i;
            }
        }
        return otherwise;
    }
}
