package io.cmdemux.pathrecord.ls;

/**
 * rdma_netlink.h LS_RESOLVE_PATH_USE_*: how the kernel will use the answer. ib_nl_set_path_rec_attrs
 * sends UNIDIRECTIONAL unless the query is reversible; a reversible query is GMP up to Linux 6.1 and
 * ALL from 6.2 (the multiple-path-records change), which also tells the responder the kernel takes
 * up to three records.
 */
public enum PathUse {
    ALL(0),
    UNIDIRECTIONAL(1),
    GMP(2);

    private final int wire;

    PathUse(int wire) {
        this.wire = wire;
    }

    public int wire() {
        return wire;
    }

    /** The enum for a wire value; anything else is treated as GMP, the default branch of the kernel's switch. */
    public static PathUse of(int wire) {
        switch (wire) {
            case 0:
                return ALL;
            case 1:
                return UNIDIRECTIONAL;
            default:
                return GMP;
        }
    }

    /** The path is used in both directions, so the SA query asks for a reversible path. */
    public boolean reversible() {
        return this != UNIDIRECTIONAL;
    }

    public String cliName() {
        return name().toLowerCase();
    }
}
