package io.cmdemux.observer;

import io.cmdemux.observer.trace.CmaEvent;
import io.cmdemux.observer.trace.IcmEvent;
import io.cmdemux.observer.trace.KernelEvent;
import io.cmdemux.observer.trace.LostEvents;
import io.cmdemux.observer.trace.ProbeReturn;
import io.cmdemux.observer.trace.ReqProbeEvent;
import io.cmdemux.observer.trace.TraceHeader;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns the kernel's events into one {@link KernelRequest} per request, keyed by the requester's comm ID. The
 * kernel's path, and which events show it:
 * <ul>
 * <li>ib_cm's cm_req_handler finds no listener: it sends REJ 8 (icm_no_listener_err), or for a SIDR REQ a SIDR
 * REP with IB_SIDR_UNSUPPORTED (icm_send_sidr_rep, with no rdma_cm call before it);</li>
 * <li>it calls rdma_cm's cma_ib_req_handler (our kprobe cmdemux/req, with the requester's comm ID); that either
 * finds the listener in the net device's namespace (rdma_cma's cm_req_handler tracepoint, in the same task, with
 * the listener's cm.id) or fails, and ib_cm's cm_destroy_id answers REJ 28 (icm_send_rej) or SIDR status 2;</li>
 * <li>without the kprobe, a delivery is tied to its comm ID later: the listener's child id (cm_event_handler
 * CONNECT_REQUEST after cm_id_attach) answers with cm_send_rep/cm_send_rej/cm_send_sidr_rep, and ib_cm's icm_send_*
 * right after it in the same task names the requester;</li>
 * <li>anything else is silence: a request known to have been sent (in the lab, where the requester shares the
 * kernel: icm_send_req) or received (the kprobe saw it) that nothing answered, at the end of a recording
 * ({@link #finish}) or, live, once it is older than the requester's response timeout ({@link #expire}).</li>
 * </ul>
 * Live, {@link #expire} also forgets what is settled and old, so that a daemon's memory does not grow with the
 * requests it has seen.
 * Not thread-safe: one reader feeds it, in the order the events were read.
 */
public final class Correlator {
    /** ib_cm states of the passive side when it answers a REQ (enum ib_cm_state's names in cm_trace.h). */
    private static final Set<String> PASSIVE_STATES = Set.of("REQ_RCVD", "MRA_REQ_SENT", "SIDR_REQ_RCVD");
    private static final Set<String> ANSWERS = Set.of("icm_send_rep", "icm_send_rej", "icm_send_sidr_rep");
    private static final Set<String> CMA_ANSWERS = Set.of("cm_send_rep", "cm_send_rej", "cm_send_sidr_rep");

    private final RejectReasons reasons;
    private final boolean requesterHere;
    private final Map<String, TaskState> tasks = new HashMap<>();
    private final Map<Long, Pending> requests = new LinkedHashMap<>();
    private final Map<String, Child> children = new HashMap<>();
    // read by other threads (the daemon's status page) while the reader adds to it
    private final Map<String, Long> skips = new java.util.concurrent.ConcurrentHashMap<>();
    private volatile long lost;

    /**
     * @param requesterHere true when the requesters run on the same kernel (the lab): then a REQ this kernel sent
     *     is also one it received, and one that nothing answered is silence
     */
    public Correlator(RejectReasons reasons, boolean requesterHere) {
        this.reasons = reasons;
        this.requesterHere = requesterHere;
    }

    private record Child(KernelOutcome.Delivered delivered, long time) {}

    private static final class TaskState {
        long seen;
        ReqProbeEvent probe;
        CmaEvent listener;
        CmaEvent attach;
        String answeringChild;
        long failedHandlerRet;
    }

    private static final class Pending {
        final long localCommId;
        long time;
        boolean sidr;
        ReqProbeEvent probe;
        String device;
        KernelOutcome outcome;
        boolean emitted;

        Pending(long localCommId, long time) {
            this.localCommId = localCommId;
            this.time = time;
        }
    }

    /** Feeds one event; returns the requests whose outcome it settled. */
    public List<KernelRequest> accept(KernelEvent e) {
        List<KernelRequest> out = new ArrayList<>(1);
        if (e instanceof LostEvents l) {
            lost += l.count();
            return out;
        }
        TraceHeader h = e.header();
        TaskState t = tasks.computeIfAbsent(h.task() + "-" + h.pid(), k -> new TaskState());
        t.seen = Math.max(t.seen, h.timestampNanos());
        if (e instanceof ReqProbeEvent p) {
            t.probe = p;
            Pending r = pending(p.remoteId(), h.timestampNanos());
            r.probe = p;
            r.sidr = p.sidr();
            r.device = p.device();
        } else if (e instanceof ProbeReturn r && ReqProbe.FUNCTION.equals(r.function())) {
            t.failedHandlerRet = r.ret();
        } else if (e instanceof CmaEvent c) {
            cma(t, c, out);
        } else if (e instanceof IcmEvent i) {
            icm(t, i, out);
        }
        return out;
    }

    private void cma(TaskState t, CmaEvent c, List<KernelRequest> out) {
        switch (c.event()) {
            case "cm_req_handler":
                if ("REQ_RECEIVED".equals(c.what()) || "SIDR_REQ_RECEIVED".equals(c.what())) {
                    t.listener = c;
                    t.attach = null;
                    if (t.probe != null) {
                        Pending r = requests.get(t.probe.remoteId());
                        settle(r, new KernelOutcome.Delivered(t.probe.device(), c.cmId(), c.src()), out);
                    }
                }
                break;
            case "cm_id_attach":
                if (t.listener != null) {
                    t.attach = c;
                }
                break;
            case "cm_event_handler":
                if ("CONNECT_REQUEST".equals(c.what()) && t.listener != null && t.attach != null
                        && c.src().equals(t.attach.src()) && c.dst().equals(t.attach.dst())) {
                    children.put(childKey(c), new Child(new KernelOutcome.Delivered(t.attach.device(),
                            t.listener.cmId(), t.listener.src()), c.header().timestampNanos()));
                    t.listener = null;
                    t.attach = null;
                    t.probe = null;
                }
                break;
            default:
                if (CMA_ANSWERS.contains(c.event())) {
                    t.answeringChild = childKey(c);
                }
                break;
        }
    }

    private void icm(TaskState t, IcmEvent i, List<KernelRequest> out) {
        String ev = i.event();
        if (requesterHere && ("icm_send_req".equals(ev) || "icm_send_sidr_req".equals(ev))) {
            Pending r = pending(i.localId(), i.header().timestampNanos());
            r.sidr = "icm_send_sidr_req".equals(ev);
            return;
        }
        if (i.remoteId() == 0) {
            return;
        }
        if ("icm_no_listener_err".equals(ev)) {
            settle(pending(i.remoteId(), i.header().timestampNanos()),
                    new KernelOutcome.Rejected(8, false, "icm_no_listener_err"), out);
            return;
        }
        if (!ANSWERS.contains(ev) || (i.state() != null && !PASSIVE_STATES.contains(i.state()))) {
            return;
        }
        Pending r = pending(i.remoteId(), i.header().timestampNanos());
        String child = t.answeringChild;
        t.answeringChild = null;
        Child answered = child == null ? null : children.remove(child);
        if (answered != null) {
            settle(r, answered.delivered(), out);
            return;
        }
        boolean rdmaCmRefused = (t.probe != null && t.probe.remoteId() == i.remoteId()) || t.failedHandlerRet != 0;
        t.probe = null;
        t.failedHandlerRet = 0;
        if ("icm_send_rej".equals(ev)) {
            int n = reasons.number(i.reason());
            if (n < 0) {
                skip("icm_send_rej reason " + i.reason() + " not in the format's table");
                return;
            }
            settle(r, new KernelOutcome.Rejected(n, false, "icm_send_rej " + i.reason()), out);
        } else if ("icm_send_sidr_rep".equals(ev)) {
            r.sidr = true;
            // cm_sidr_req_handler answers IB_SIDR_UNSUPPORTED when no listener matched; after rdma_cm refused
            // (cma_ib_req_handler failed), cm_destroy_id's cm_reject_sidr_req sends IB_SIDR_REJECT.
            settle(r, rdmaCmRefused ? new KernelOutcome.Rejected(2, true, "icm_send_sidr_rep after rdma_cm refused")
                    : new KernelOutcome.Rejected(1, true, "icm_send_sidr_rep without a listener"), out);
        }
    }

    private static String childKey(CmaEvent c) {
        return c.cmId() + " " + c.src() + " " + c.dst();
    }

    private Pending pending(long commId, long time) {
        Pending p = requests.computeIfAbsent(commId, k -> new Pending(k, time));
        p.time = Math.min(p.time, time);
        return p;
    }

    private void settle(Pending r, KernelOutcome o, List<KernelRequest> out) {
        if (r == null || r.outcome != null) {
            return;
        }
        r.outcome = o;
        if (o instanceof KernelOutcome.Delivered d && r.device == null) {
            r.device = d.device();
        }
        r.emitted = true;
        out.add(record(r));
    }

    private KernelRequest record(Pending r) {
        int port = r.probe == null ? 0 : r.probe.port();
        return new KernelRequest(r.time, r.localCommId, r.sidr, r.device, port, r.probe, r.outcome);
    }

    /** At the end of a recording: every request still unanswered was met with silence. */
    public List<KernelRequest> finish() {
        List<KernelRequest> out = new ArrayList<>();
        for (Pending r : requests.values()) {
            if (!r.emitted) {
                silent(r, out);
            }
        }
        return out;
    }

    /**
     * Live: a request unanswered {@code silenceAfter} after it arrived was met with silence (its requester is
     * timing out), and what was settled more than {@code retain} ago is forgotten. A request is kept that long
     * after its outcome so that the requester's retries of it (the same comm ID) are not new requests.
     *
     * @param now the trace clock's time now
     */
    public List<KernelRequest> expire(long now, long silenceAfter, long retain) {
        List<KernelRequest> out = new ArrayList<>();
        for (var it = requests.values().iterator(); it.hasNext(); ) {
            Pending r = it.next();
            if (!r.emitted && now - r.time >= silenceAfter) {
                silent(r, out);
            }
            if (r.emitted && now - r.time >= retain) {
                it.remove();
            }
        }
        children.values().removeIf(c -> now - c.time() >= retain);
        tasks.values().removeIf(t -> now - t.seen >= retain);
        return out;
    }

    private void silent(Pending r, List<KernelRequest> out) {
        r.outcome = new KernelOutcome.Silent(r.probe == null ? "no answer from ib_cm or rdma_cm"
                : "rdma_cm took it but neither delivered nor refused it");
        r.emitted = true;
        out.add(record(r));
    }

    /** Requests, listeners' children and tasks held now: what {@link #expire} bounds. */
    int held() {
        return requests.size() + children.size() + tasks.size();
    }

    private void skip(String reason) {
        skips.merge(reason, 1L, Long::sum);
    }

    /** Events the kernel reported lost ([LOST N EVENTS]): requests among them may be missing or wrong. */
    public long lostEvents() {
        return lost;
    }

    public Map<String, Long> skips() {
        return Map.copyOf(skips);
    }
}
