package io.cmdemux.observer;

import io.cmdemux.observer.nldev.CmIdEntry;
import io.cmdemux.observer.nldev.NldevDump;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Names the listener and namespace of each delivered request: the tracepoint's listener cm.id is the listener's
 * restrack ID on the device (RES_CM_IDN in the nldev dump), whose RES_PID leads to /proc/PID/ns/net.
 */
public final class Observations {
    private final Supplier<NldevDump> fresh;
    private final PidNamespaces pids;
    private NldevDump dump;

    /**
     * @param fresh a new dump, asked for when a listener is not in the last one (it listened after that dump)
     */
    public Observations(NldevDump first, Supplier<NldevDump> fresh, PidNamespaces pids) {
        this.dump = first;
        this.fresh = fresh;
        this.pids = pids;
    }

    /** The last nldev dump asked for. */
    public NldevDump dump() {
        return dump;
    }

    public Observation of(KernelRequest r) {
        if (!(r.outcome() instanceof KernelOutcome.Delivered d)) {
            return new Observation(r, null, null);
        }
        Optional<CmIdEntry> listener = dump.cmId(d.device(), d.listenerCmId());
        if (listener.isEmpty() && fresh != null) {
            NldevDump next = fresh.get();
            if (next != null) {
                dump = next;
                listener = dump.cmId(d.device(), d.listenerCmId());
            }
        }
        NetnsRef ns = listener.filter(l -> l.pid() != 0).flatMap(l -> pids.of(l.pid())).orElse(null);
        return new Observation(r, listener.orElse(null), ns);
    }
}
