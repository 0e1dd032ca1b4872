package io.cmdemux.render.picture;

import io.cmdemux.ingress.resolve.Decision;
import io.cmdemux.ingress.resolve.TraceRef;
import io.cmdemux.ingress.resolve.TraceStep;
import java.util.ArrayList;
import java.util.List;

/**
 * A decision's trace as a path through the picture: the nodes the walk stood on, in order, each
 * with the trace steps that led there. Every step appears exactly once, in trace order: a step
 * that only checks (ib-cm-listen, iff-up) is told on the way to the next node, and steps after
 * the last node end the walk (REJ, drop). Pure.
 */
public final class DecisionWalk {
    private DecisionWalk() {}

    /**
     * One node of the walk.
     *
     * @param node the picture's node id
     * @param at what the trace pointed at there (the first step that stood on it)
     * @param steps indexes into the trace of the steps on the edge into this node
     */
    public record Hop(String node, TraceRef at, List<Integer> steps) {}

    /** The hops, and the steps after the last one. */
    public record Walk(List<Hop> hops, List<Integer> trailing) {}

    public static Walk of(Decision d) {
        List<Hop> hops = new ArrayList<>();
        List<Integer> pending = new ArrayList<>();
        List<TraceStep> trace = d.trace();
        for (int i = 0; i < trace.size(); i++) {
            pending.add(i);
            TraceRef at = trace.get(i).at();
            if (at == null) {
                continue;
            }
            String node = nodeOf(at);
            Hop last = hops.isEmpty() ? null : hops.get(hops.size() - 1);
            if (last != null && last.node().equals(node)) {
                List<Integer> steps = new ArrayList<>(last.steps());
                steps.addAll(pending);
                hops.set(hops.size() - 1, new Hop(node, last.at(), List.copyOf(steps)));
            } else {
                hops.add(new Hop(node, at, List.copyOf(pending)));
            }
            pending.clear();
        }
        return new Walk(List.copyOf(hops), List.copyOf(pending));
    }

    /**
     * The picture's node for what a step points at; a P_Key slot and an IB GID without a net device stay at their port.
     */
    public static String nodeOf(TraceRef ref) {
        if (ref instanceof TraceRef.Port p) {
            return Ids.rdmaPort(p.device(), p.port());
        } else if (ref instanceof TraceRef.PkeyIndex p) {
            return Ids.rdmaPort(p.device(), p.port());
        } else if (ref instanceof TraceRef.GidIndex g) {
            return g.ndev() == null ? Ids.rdmaPort(g.device(), g.port()) : Ids.link(g.ndev());
        } else if (ref instanceof TraceRef.Netdev n) {
            return Ids.link(n.link());
        } else if (ref instanceof TraceRef.Namespace n) {
            return Ids.namespace(n.netns());
        } else if (ref instanceof TraceRef.Listen l) {
            return Ids.listener(l.listener());
        }
        throw new IllegalArgumentException("unknown trace reference " + ref);
    }

    /** "5 gid-match: index 3": the step's number in the trace (from 1), its name, and the slot it chose. */
    public static String stepLabel(List<TraceStep> trace, int index) {
        TraceStep s = trace.get(index);
        String slot = "";
        if (s.at() instanceof TraceRef.GidIndex g) {
            slot = ": index " + g.index();
        } else if (s.at() instanceof TraceRef.PkeyIndex p) {
            slot = ": P_Key index " + p.index();
        }
        return (index + 1) + " " + s.step() + slot;
    }
}
