package io.cmdemux.gid;

import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsState;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.netdev.Link;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A cmdemux soft RoCE port: RDMA device {@code name}, port 1, on a net device with no RDMA
 * hardware. Written {@code NAME=NETDEV[@NETNS][:TYPES]} on the command line and in the config,
 * e.g. {@code soft0=uplink}, {@code soft0=eth1@infra:v1,v2}.
 *
 * @param netns the namespace of the netdev (a /run/netns name or an inode); null for the host
 * @param types the GID types the port supports; RoCE v2 only by default, as rxe's ports
 * @param tableSize the GID table length; rxe's 1024 by default
 */
public record SoftPortSpec(String name, String netdev, String netns, Set<GidType> types, int tableSize) {
    /** IB_DEVICE_NAME_MAX is 64 bytes with the NUL. */
    private static final Pattern SYNTAX = Pattern.compile(
            "([A-Za-z0-9_.-]{1,63})=([^@:/\\s]{1,15})(?:@([^:\\s]+))?(?::([A-Za-z0-9, -]+))?");
    public static final int PORT = 1;

    public SoftPortSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(netdev, "netdev");
        if (types == null || types.isEmpty()) {
            types = RoceGidRules.ROCE_V2_ONLY;
        }
        if (types.contains(GidType.IB)) {
            throw new IllegalArgumentException("a soft RoCE port has RoCE v1 and/or v2 GIDs, not IB");
        }
        types = Collections.unmodifiableSet(EnumSet.copyOf(types));
        if (tableSize <= types.size()) {
            throw new IllegalArgumentException(
                    "GID table size " + tableSize + " leaves no slot beyond the " + types.size() + " default GIDs");
        }
    }

    /** Parses {@code NAME=NETDEV[@NETNS][:v1,v2]}; IllegalArgumentException says what is wrong. */
    public static SoftPortSpec parse(String text) {
        Matcher m = SYNTAX.matcher(text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException(
                    "--rdma-port '" + text + "': expected NAME=NETDEV[@NETNS][:v1,v2], e.g. soft0=eth1");
        }
        Set<GidType> types = EnumSet.noneOf(GidType.class);
        if (m.group(4) != null) {
            for (String t : m.group(4).split(",")) {
                if (!t.isBlank()) {
                    types.add(GidType.parse(t, true));
                }
            }
        }
        return new SoftPortSpec(m.group(1), m.group(2), m.group(3), types, RoceGidRules.RXE_GID_TABLE_LEN);
    }

    /** The port netdev in this topology, by name in its namespace (or altname), if it exists. */
    public Optional<LinkRef> resolve(TopologySnapshot snap) {
        Optional<NetnsState> ns = netns == null ? Optional.of(snap.hostState()) : snap.findNamespace(netns);
        if (ns.isEmpty()) {
            return Optional.empty();
        }
        Link l = ns.get().linkByName(netdev);
        return l == null ? Optional.empty() : Optional.of(new LinkRef(ns.get().id(), l.ifindex()));
    }

    public String where() {
        return netdev + (netns == null ? "" : "@" + netns);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(name).append('=').append(where()).append(':');
        String sep = "";
        for (GidType t : types) {
            sb.append(sep).append(t == GidType.ROCE_V1 ? "v1" : "v2");
            sep = ",";
        }
        return sb.toString();
    }
}
