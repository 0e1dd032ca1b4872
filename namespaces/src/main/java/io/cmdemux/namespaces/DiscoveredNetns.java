package io.cmdemux.namespaces;

import java.util.List;

/**
 * A namespace found on the host.
 *
 * @param names the names `ip netns` shows for it (files in /run/netns), sorted; empty if unnamed
 * @param path a file that opens it: /run/netns/NAME, or /proc/PID/ns/net for unnamed ones
 * @param self whether it is the namespace this process runs in, the host namespace for cmdemux
 */
public record DiscoveredNetns(NetnsId id, List<String> names, String path, boolean self) {
    public DiscoveredNetns {
        names = List.copyOf(names);
    }
}
