package io.cmdemux.pods;

import io.cmdemux.gid.Gid;
import io.cmdemux.gid.GidType;
import java.net.InetAddress;
import java.util.Objects;

/** One pod IP and the GID table entry the kernel matches requests to it against. */
public record GidAssignment(InetAddress ip, int index, Gid gid, GidType type) {
    public GidAssignment {
        Objects.requireNonNull(ip, "ip");
        Objects.requireNonNull(gid, "gid");
        Objects.requireNonNull(type, "type");
    }
}
