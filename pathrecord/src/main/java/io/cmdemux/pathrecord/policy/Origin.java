package io.cmdemux.pathrecord.policy;

import io.cmdemux.gid.Gid;
import io.cmdemux.ingress.resolve.HostState;
import io.cmdemux.ingress.resolve.Resolver;
import io.cmdemux.ingress.resolve.TraceStep;
import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.NetnsState;
import io.cmdemux.netdev.Link;
import io.cmdemux.pathrecord.PathQuery;
import java.util.List;

/**
 * Where a path query comes from, as far as the host can tell. An RDMA_NL_LS query names no
 * namespace, so this runs the resolver's IB rule (ipoib_get_net_dev_by_params with the SGID as our
 * GID, and the query's P_Key) on the current topology: the IPoIB device that owns (port, SGID,
 * P_Key), and its namespace. Unknown when no device matches, or when children that share the
 * P_Key would need an IP to be told apart.
 *
 * @param netns null when unknown
 * @param netdev the device's name in its namespace, null when unknown
 */
public record Origin(NetnsId netns, List<String> netnsNames, boolean host, String netdev, List<TraceStep> trace) {
    public Origin {
        netnsNames = netnsNames == null ? List.of() : List.copyOf(netnsNames);
        trace = trace == null ? List.of() : List.copyOf(trace);
    }

    public static Origin unknown(List<TraceStep> trace) {
        return new Origin(null, List.of(), false, null, trace);
    }

    public boolean known() {
        return netns != null;
    }

    /** The namespace as the CLI prints it: its first name, "host", or its inode. */
    public String netnsText() {
        if (netns == null) {
            return null;
        }
        if (!netnsNames.isEmpty()) {
            return netnsNames.get(0);
        }
        return host ? "host" : Long.toString(netns.inode());
    }

    /** The origin of {@code q}, with the P_Key 0xffff when the query has none (the default partition). */
    public static Origin infer(HostState state, PathQuery q) {
        Gid sgid = q.sgid();
        if (sgid == null) {
            return unknown(List.of());
        }
        Resolver.NetdevLookup l = Resolver.netdevFor(state, q.device(), q.port(), sgid, q.pkey().orElse(0xffff), null);
        if (l.netdev() == null) {
            return unknown(l.trace());
        }
        LinkRef ref = l.netdev();
        Link link = state.topology().link(ref);
        NetnsState ns = state.topology().namespace(ref.netns());
        return new Origin(ref.netns(), ns == null ? List.of() : ns.names(), ns != null && ns.host(),
                link == null ? null : link.name(), l.trace());
    }
}
