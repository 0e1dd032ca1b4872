package io.cmdemux.control.server;

import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.NetnsState;
import io.cmdemux.namespaces.TopologySnapshot;
import java.util.function.Supplier;

/** Names namespaces for people: "host", the first name under /run/netns, or "" when unnamed or unknown. */
final class NamespaceNames {
    private final NetnsId host;
    private final Supplier<TopologySnapshot> topology;

    NamespaceNames(NetnsId host, Supplier<TopologySnapshot> topology) {
        this.host = host;
        this.topology = topology;
    }

    NetnsId host() {
        return host;
    }

    String of(NetnsId id) {
        if (id == null) {
            return "";
        }
        if (id.equals(host)) {
            return "host";
        }
        TopologySnapshot snap = topology.get();
        NetnsState s = snap == null ? null : snap.namespace(id);
        return s == null || s.names().isEmpty() ? "" : s.names().get(0);
    }
}
