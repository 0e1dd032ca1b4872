package io.cmdemux.gid;

/** A GID entry's type (enum ib_gid_type). sysfs writes IB and RoCE v1 alike as "IB/RoCE v1". */
public enum GidType {
    IB("IB"),
    ROCE_V1("RoCE v1"),
    ROCE_V2("RoCE v2");

    private final String text;

    GidType(String text) {
        this.text = text;
    }

    /** The form show_gids and our JSON print. */
    public String text() {
        return text;
    }

    /** Parses "RoCE v2", "IB/RoCE v1" (sysfs), "v1"/"v2", "ib", "roce-v2". */
    public static GidType parse(String s, boolean ethernetPort) {
        String t = s.trim().toLowerCase().replace('-', ' ').replace('_', ' ');
        if (t.equals("roce v2") || t.equals("v2")) {
            return ROCE_V2;
        }
        if (t.equals("ib/roce v1")) {
            return ethernetPort ? ROCE_V1 : IB;
        }
        if (t.equals("roce v1") || t.equals("v1")) {
            return ROCE_V1;
        }
        if (t.equals("ib")) {
            return IB;
        }
        throw new IllegalArgumentException("unknown GID type '" + s + "' (expected IB, RoCE v1 or RoCE v2)");
    }
}
