package io.cmdemux.namespaces;

/** A link anywhere on the host: its namespace and its ifindex there. */
public record LinkRef(NetnsId netns, int ifindex) {
    @Override
    public String toString() {
        return ifindex + "@" + netns;
    }
}
