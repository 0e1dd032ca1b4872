package io.cmdemux.dataplane.pipeline;

import io.cmdemux.dataplane.cm.Sessions;
import io.cmdemux.dataplane.dispatch.Dispatcher;
import io.cmdemux.dataplane.metrics.Metrics;
import io.cmdemux.dataplane.reply.FrameSender;
import io.cmdemux.dataplane.reply.RejLimiter;
import io.cmdemux.ingress.resolve.Decision;
import io.cmdemux.ingress.resolve.DecisionCache;
import io.cmdemux.ingress.resolve.HostState;
import io.cmdemux.ingress.resolve.IngressPorts;
import io.cmdemux.ingress.resolve.PacketMeta;
import io.cmdemux.ingress.resolve.PacketMetas;
import io.cmdemux.ingress.resolve.ResolverMode;
import io.cmdemux.ingress.wire.CmAttribute;
import io.cmdemux.ingress.wire.RoceFrame;
import io.cmdemux.ingress.wire.RoceFrameView;
import io.cmdemux.netdev.MalformedException;
import io.cmdemux.netdev.PacketSocket;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Frame → decode (ICRC checked) → PacketMeta → resolver → dispatcher. Bad frames are counted and
 * dropped; nothing here throws for what arrives on the wire.
 */
public final class Pipeline {
    private static final Logger log = LoggerFactory.getLogger(Pipeline.class);
    /** frames_total's result for each CM message that is not a request: "cm-rtu", "cm-dreq", ... */
    private static final Map<CmAttribute, String> CM_RESULTS = new EnumMap<>(CmAttribute.class);

    static {
        for (CmAttribute a : CmAttribute.values()) {
            CM_RESULTS.put(a, "cm-" + a.name().toLowerCase(Locale.ROOT));
        }
    }

    private final Supplier<HostState> state;
    private final DecisionCache cache;
    private final ResolverMode mode;
    private final Dispatcher dispatcher;
    private final Sessions sessions;
    private final RejLimiter limiter;
    private final Metrics metrics;
    private final DecisionLog decisions;
    private final boolean guarded;
    /** Which soft port owns what each tap sees (IngressPorts.ownerOfArrival), for one state. */
    private volatile Owners owners = new Owners(null, Map.of());

    private record Owners(HostState state, Map<String, String> byDevice) {}

    /**
     * @param guarded whether the nftables guard drops RoCEv2 at every soft port's netdev, so that a
     *     frame arriving on a bond's port never reaches the bond's own tap
     */
    public Pipeline(Supplier<HostState> state, DecisionCache cache, ResolverMode mode, boolean guarded,
            Dispatcher dispatcher, Sessions sessions, RejLimiter limiter, Metrics metrics, DecisionLog decisions) {
        this.guarded = guarded;
        this.sessions = sessions;
        this.state = state;
        this.cache = cache;
        this.mode = mode;
        this.dispatcher = dispatcher;
        this.limiter = limiter;
        this.metrics = metrics;
        this.decisions = decisions;
    }

    /** Requests this thread delivers are handed to their consumers only at {@link #releaseDeliveries()}. */
    public void holdDeliveries() {
        dispatcher.holdDeliveries();
    }

    /** Hands the requests held since {@link #holdDeliveries()} to their consumers. */
    public void releaseDeliveries() {
        dispatcher.releaseDeliveries();
    }

    private final RoceFrameView ahead = new RoceFrameView();
    private int[] aheadComm = new int[0];
    private long[] aheadGuid = new long[0];
    /** Where the prefetch's loads go, so that the JIT keeps them. */
    private volatile long prefetched;

    /**
     * Before a batch's frames are handled one by one ({@link #onFrame}, on the same thread): warms
     * the session indexes for its REQs (Sessions.prefetch). Frames that are not REQs are skipped here.
     */
    public void prefetch(PacketSocket.Batch frames, int n) {
        if (aheadComm.length < n) {
            aheadComm = new int[n];
            aheadGuid = new long[n];
        }
        int reqs = 0;
        for (int i = 0; i < n; i++) {
            byte[] f = frames.frame(i);
            try {
                ahead.wrapEthernet(f, 0, f.length);
            } catch (MalformedException e) {
                continue;
            }
            if (ahead.attribute() == CmAttribute.REQ) {
                aheadComm[reqs] = ahead.localCommId();
                aheadGuid[reqs++] = ahead.localCaGuid();
            }
        }
        prefetched = sessions.prefetch(aheadComm, aheadGuid, reqs, dispatcher.peekTraceId());
    }

    private String owner(HostState now, String device) {
        Owners o = owners;
        if (o.state() != now) {
            Map<String, String> m = new java.util.HashMap<>();
            for (io.cmdemux.gid.RdmaDevice d : now.rdma().devices()) {
                m.put(d.name(), IngressPorts.ownerOfArrival(now, d.name()));
            }
            o = new Owners(now, Map.copyOf(m));
            owners = o;
        }
        return o.byDevice().getOrDefault(device, device);
    }

    /**
     * Handles one frame that arrived on {@code device} port 1 at {@code arrivedNanos}; returns the decision or null.
     */
    public Decision onFrame(String device, byte[] raw, long arrivedNanos, FrameSender port) {
        // The state in force when the frame arrived, or a newer one: never an older one.
        HostState now = state.get();
        RoceFrameView view;
        try {
            view = RoceFrameView.ethernet(raw, 0, raw.length);
        } catch (MalformedException e) {
            metrics.frame("malformed");
            log.debug("dropped a frame on {}: {} at offset {}", device, e.reason(), e.offset());
            return null;
        }
        if (!view.icrcValid()) {
            // rxe_icrc_check fails and rxe drops the packet silently; a frame that ends where its ICRC
            // would start fails it too (rxe takes the MAD's last 4 bytes for the ICRC), counted apart
            // because it is a sender's bug rather than damage on the way.
            metrics.frame(view.icrcMissing() ? "missing-icrc" : "bad-icrc");
            return null;
        }
        String owner = owner(now, device);
        if (!owner.equals(device)) {
            // The frame belongs to the soft port on the bond (bond_handle_frame). Without the guard
            // that port's own tap sees it too, after the bond took it; with it, only this tap does.
            if (!guarded) {
                metrics.frame("other-port");
                return null;
            }
            device = owner;
        }
        // Checked in place; the records are built only for a frame that is kept.
        RoceFrame frame = view.toFrame();
        Optional<PacketMeta> meta = PacketMetas.of(device, 1, frame);
        if (meta.isEmpty()) {
            // RTU, DREQ, DREP, REJ, MRA: the rest of a connection's life, routed by comm ID
            metrics.frame(CM_RESULTS.get(frame.mad().message().attribute()));
            sessions.onWire(frame, port);
            return null;
        }
        metrics.frame("request");
        limiter.requestIn(frame.l3().src(), raw.length);
        if (dispatcher.repeatIfDuplicate(frame)) {
            return null;
        }
        long traceId = dispatcher.newTraceId();
        Decision d = dispatcher.dispatch(traceId, frame, raw, meta.get(), cache.resolve(now, meta.get(), mode), port);
        decisions.add(traceId, System.currentTimeMillis(), device, meta.get(), d, now);
        if (d.outcome() == Decision.Outcome.DELIVER) {
            metrics.delivered(arrivedNanos);
        }
        if (log.isDebugEnabled()) {
            log.debug("trace {} comm 0x{} {}:{} -> {} on {}: {}", traceId, Long.toHexString(meta.get().localCommId()),
                    meta.get().srcIp(), meta.get().port(), meta.get().dstIp(), device, d.outcome());
        }
        return d;
    }
}
