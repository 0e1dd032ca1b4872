package io.cmdemux.observer;

import java.util.List;

/**
 * A network namespace as the observer names it: its inode (what /proc/PID/ns/net links to) and its names
 * ("init" for the host's, otherwise /run/netns names), empty when nobody named it.
 */
public record NetnsRef(long inode, List<String> names) {
    public NetnsRef {
        names = List.copyOf(names);
    }

    public String displayName() {
        return names.isEmpty() ? "netns:" + inode : names.get(0);
    }
}
