package io.cmdemux.control.protocol;

/** How a consumer reached the daemon, which decides how its namespace was proven. */
public enum Via {
    /** The host socket file: the namespace comes from SO_PEERCRED, checked against the socket's own netns cookie. */
    HOST_SOCKET(1),
    /** The abstract socket @cmdemux that the daemon opened inside the consumer's namespace. */
    ABSTRACT_SOCKET(2);

    private final int code;

    Via(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public static Via ofCode(int code) {
        for (Via v : values()) {
            if (v.code == code) {
                return v;
            }
        }
        throw new IllegalArgumentException("unknown via " + code);
    }
}
