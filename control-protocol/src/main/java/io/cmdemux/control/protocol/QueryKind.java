package io.cmdemux.control.protocol;

/**
 * What a QUERY asks for. LISTENERS is answered by the control server itself, the rest by the
 * daemon's {@link QueryHandler}.
 */
public enum QueryKind {
    TOPOLOGY(1),
    EXPLAIN(2),
    GIDS(3),
    LISTENERS(4),
    /** The pods the CNI plugin registered, with their GID indices. */
    PODS(5);

    private final int code;

    QueryKind(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** null for a code this version does not know. */
    public static QueryKind ofCode(int code) {
        for (QueryKind k : values()) {
            if (k.code == code) {
                return k;
            }
        }
        return null;
    }
}
