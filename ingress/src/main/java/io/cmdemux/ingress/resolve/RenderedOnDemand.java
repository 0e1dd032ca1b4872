package io.cmdemux.ingress.resolve;

import java.util.AbstractList;
import java.util.List;
import java.util.Objects;
import java.util.RandomAccess;

/**
 * A decision's trace, written when first read. The resolver answers without writing any text;
 * the trace is the same pure walk run again over the same immutable state and request with its
 * steps written down, so it says exactly what an eager trace would have said. Most decisions are
 * never explained, and the text costs more than the answer.
 *
 * <p>Keeps the state it was decided on reachable, as the decision log already does.
 */
final class RenderedOnDemand extends AbstractList<TraceStep> implements RandomAccess {
    private final HostState state;
    private final PacketMeta meta;
    private final ResolverMode mode;
    private volatile List<TraceStep> steps;

    RenderedOnDemand(HostState state, PacketMeta meta, ResolverMode mode) {
        this.state = state;
        this.meta = meta;
        this.mode = mode;
    }

    private List<TraceStep> steps() {
        List<TraceStep> s = steps;
        if (s == null) {
            // Pure and deterministic: two threads racing here write equal lists.
            Decision traced = Resolver.resolveTraced(state, meta, mode);
            assert sameAnswer(traced, Resolver.resolve(state, meta, mode))
                    : "the traced walk answers differently from the untraced one: " + traced;
            s = traced.trace();
            steps = s;
        }
        return s;
    }

    static boolean sameAnswer(Decision traced, Decision untraced) {
        return traced.sameAnswer(untraced) && Objects.equals(traced.dropReason(), untraced.dropReason())
                && traced.topologyGeneration() == untraced.topologyGeneration();
    }

    @Override
    public TraceStep get(int index) {
        return steps().get(index);
    }

    @Override
    public int size() {
        return steps().size();
    }
}
