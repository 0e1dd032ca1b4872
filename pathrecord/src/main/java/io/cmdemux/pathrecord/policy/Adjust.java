package io.cmdemux.pathrecord.policy;

/**
 * A rule's change to one PathRecord field: set it, or limit it to at most a value. For the rate,
 * "at most" compares bandwidths (IbRate.mbps); for SL, MTU and P_Key, the enum values.
 */
public record Adjust(Kind kind, int value) {
    public enum Kind { SET, MAX }

    public static Adjust set(int v) {
        return new Adjust(Kind.SET, v);
    }

    public static Adjust max(int v) {
        return new Adjust(Kind.MAX, v);
    }

    int apply(int current) {
        return kind == Kind.SET ? value : Math.min(current, value);
    }

    int applyRate(int current) {
        if (kind == Kind.SET) {
            return value;
        }
        return IbRate.mbps(current) > IbRate.mbps(value) ? value : current;
    }

    @Override
    public String toString() {
        return (kind == Kind.SET ? "set " : "at most ") + value;
    }
}
