package io.cmdemux.gid;

import java.util.Objects;

/**
 * One finding of {@link GidCheck}: what is wrong, about what, and a one-line fix.
 *
 * @param subject the device/port or namespace/interface it is about, e.g. "soft0/1" or "pod1/eth0"
 */
public record GidProblem(Kind kind, String subject, String message, String fix) {
    public enum Kind {
        /** No RDMA device and no soft port: nothing can have GIDs. */
        NO_RDMA_PORT,
        /** A pod interface that is no upper of any RoCE port's netdev: zero GIDs (veth, bridge ports). */
        NOT_AN_UPPER,
        /** One GID on one port for two namespaces: the lowest index silently wins. */
        SAME_IP_IN_TWO_NAMESPACES,
        /** An IPoIB child whose P_Key is not in its port's P_Key table. */
        PKEY_NOT_IN_TABLE,
        /** A kernel's table (sysfs) differs from the one the rules compute for this topology. */
        TABLE_DIFFERS,
        /** ib_core in exclusive netns mode while pods use a device of the host. */
        EXCLUSIVE_NETNS_MODE,
        /** A soft port without its netdev, or with a full table. */
        SOFT_PORT,
        /** A sysfs file that could not be read or tied to a link. */
        SYSFS,
    }

    public GidProblem {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(subject, "subject");
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(fix, "fix");
    }
}
