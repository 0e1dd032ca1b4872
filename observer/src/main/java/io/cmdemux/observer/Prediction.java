package io.cmdemux.observer;

import io.cmdemux.gid.Gid;
import io.cmdemux.gid.GidEntry;
import io.cmdemux.gid.RdmaPort;
import io.cmdemux.ingress.resolve.Decision;
import io.cmdemux.ingress.resolve.HostState;
import io.cmdemux.ingress.resolve.Listener;
import io.cmdemux.ingress.resolve.ListenerTable;
import io.cmdemux.ingress.resolve.Resolver;
import io.cmdemux.ingress.resolve.ResolverMode;
import io.cmdemux.ingress.resolve.SyntheticRequest;
import io.cmdemux.ingress.wire.PortSpace;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.NetnsState;
import io.cmdemux.observer.nldev.CmIdEntry;
import io.cmdemux.observer.nldev.NldevDump;
import io.cmdemux.observer.trace.ReqProbeEvent;
import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.IntFunction;

/**
 * cmdemux's kernel-mode decision for a request the kernel received, asked from the request's own fields as the
 * kprobe read them, and whether it agrees with what the kernel did. Pure.
 */
public final class Prediction {
    /** rdma_cm's header (struct cma_hdr): version, ip version, port, then the addresses. */
    private static final int CMA_HDR_LEN = 36;

    private Prediction() {}

    /**
     * The resolver's decision for the request the kprobe saw, from its own fields: the rdma_cm header's addresses,
     * the service ID's port space and port, the device, port and P_Key. Null without the kprobe (ib_cm found no
     * listener, so rdma_cm never saw it) or when the fields name no IP request.
     */
    public static Decision predict(HostState state, KernelRequest r) {
        ReqProbeEvent p = r.probe();
        if (p == null || p.cmaHeader().length < CMA_HDR_LEN) {
            return null;
        }
        byte[] h = p.cmaHeader();
        int ipVersion = (h[1] & 0xff) >>> 4;
        int srcPort = ((h[2] & 0xff) << 8) | (h[3] & 0xff);
        int dstPort = (int) (p.serviceId() & 0xffff);
        try {
            InetAddress src;
            InetAddress dst;
            if (ipVersion == 4) {
                src = InetAddress.getByAddress(Arrays.copyOfRange(h, 16, 20));
                dst = InetAddress.getByAddress(Arrays.copyOfRange(h, 32, 36));
            } else if (ipVersion == 6) {
                src = InetAddress.getByAddress(Arrays.copyOfRange(h, 4, 20));
                dst = InetAddress.getByAddress(Arrays.copyOfRange(h, 20, 36));
            } else {
                return null;
            }
            Optional<PortSpace> ps = PortSpace.ofServiceId(p.serviceId());
            if (ps.isEmpty()) {
                return null;
            }
            SyntheticRequest q = SyntheticRequest.to(new InetSocketAddress(dst, dstPort),
                    new InetSocketAddress(src, srcPort)).device(p.device()).port(p.port()).pkey(p.pkey())
                    .portSpace(ps.get());
            if (p.sgid() != null) {
                q.dgid(Gid.of(p.sgid()));
            }
            frameVlan(state, p).ifPresent(q::vlan);
            return Resolver.resolve(state, q.meta(state.rdma()), ResolverMode.KERNEL);
        } catch (IOException | IllegalArgumentException e) {
            return null;
        }
    }

    /**
     * The 802.1Q VID of the frame the request came in, which the probe cannot read: the GID entry ib_cm matched is
     * on a vlan device exactly when the frame was tagged, with its VID (find_gid_filter), so the entry's ndev says
     * it. Empty for an untagged frame, and when the snapshot has no such entry (then the resolver finds no GID
     * either and says so).
     */
    static OptionalInt frameVlan(HostState state, ReqProbeEvent p) {
        if (p.gidIndex() == ReqProbeEvent.NO_GID_INDEX) {
            return OptionalInt.empty();
        }
        return state.rdma().port(p.device(), p.port()).filter(RdmaPort::roce)
                .flatMap(port -> port.gid(p.gidIndex())).map(GidEntry::vlanId).orElse(OptionalInt.empty());
    }

    /** A decision in expected.tsv's vocabulary: deliver:NAME, reject:N, drop. */
    public static String label(HostState state, Decision d) {
        switch (d.outcome()) {
            case DELIVER: {
                NetnsState ns = state.topology().namespace(d.netns());
                return "deliver:" + (ns == null ? d.netns().toString() : name(ns));
            }
            case REJECT:
                return "reject:" + d.rejectReason();
            default:
                return "drop";
        }
    }

    /** Whether cmdemux decided as the kernel did: a delivery into the same namespace, else the same label. */
    public static boolean agrees(HostState state, Observation ob, Decision d) {
        if (ob.request().outcome() instanceof KernelOutcome.Delivered) {
            return d.outcome() == Decision.Outcome.DELIVER && ob.namespace() != null && d.netns() != null
                    && d.netns().inode() == ob.namespace().inode();
        }
        return ob.label().equals(label(state, d));
    }

    /**
     * The LISTEN cm_ids of an nldev dump as the resolver's listeners, each in its owner's namespace (a wildcard
     * listener is listed once per device: it is one listener).
     *
     * @param namespaceOfPid each owner's namespace, or null when it is not known (the process is gone)
     */
    public static ListenerTable listeners(NldevDump dump, IntFunction<NetnsId> namespaceOfPid) {
        List<Listener> out = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        long order = 1;
        for (CmIdEntry c : dump.cmIds()) {
            if (!c.listening() || c.src() == null || c.pid() == 0) {
                continue;
            }
            NetnsId ns = namespaceOfPid.apply(c.pid());
            PortSpace ps = PortSpace.byCode(c.ps());
            if (ns == null || ps == null) {
                continue;
            }
            InetAddress a = c.src().getAddress();
            int scope = a instanceof Inet6Address v6 ? v6.getScopeId() : 0;
            if (seen.add(ns + " " + ps + " " + c.src())) {
                out.add(new Listener(ns, ps, c.src().getPort(), a, Listener.defaultAfonly(a), scope, order++, null,
                        "pid " + c.pid()));
            }
        }
        return new ListenerTable(dump.cmIds().size(), out);
    }

    /** "init" for the host's namespace, its name (or inode) otherwise: the names expected.tsv uses. */
    public static String name(NetnsState ns) {
        return ns.host() ? "init" : ns.displayName();
    }
}
