package io.cmdemux.cni;

/** CNI_COMMAND, and the environment variables each one needs (SPEC.md, section 2). */
enum CniOperation {
    ADD(true, true, true),
    DEL(true, false, true),
    CHECK(true, true, true),
    STATUS(false, false, false),
    GC(false, false, false),
    VERSION(false, false, false);

    final boolean needsContainerId;
    final boolean needsNetns;
    final boolean needsIfname;

    CniOperation(boolean needsContainerId, boolean needsNetns, boolean needsIfname) {
        this.needsContainerId = needsContainerId;
        this.needsNetns = needsNetns;
        this.needsIfname = needsIfname;
    }

    static CniOperation of(String s) {
        for (CniOperation c : values()) {
            if (c.name().equals(s)) {
                return c;
            }
        }
        return null;
    }
}
