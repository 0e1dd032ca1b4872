package io.cmdemux.cni;

/**
 * A CNI error result: the spec's well-known codes below 100, ours from 100 up. Each of ours says
 * what is wrong in {@code msg} and what to do in {@code details}.
 */
public final class CniError extends Exception {
    private static final long serialVersionUID = 1L;

    // The CNI spec's well-known error codes (SPEC.md, "Error").
    public static final int INCOMPATIBLE_VERSION = 1;
    public static final int UNSUPPORTED_FIELD = 2;
    public static final int CONTAINER_UNKNOWN = 3;
    public static final int INVALID_ENVIRONMENT = 4;
    public static final int IO_FAILURE = 5;
    public static final int DECODE_FAILURE = 6;
    public static final int INVALID_CONFIG = 7;
    public static final int TRY_AGAIN_LATER = 11;
    public static final int NOT_AVAILABLE = 50;

    // cmdemux-cni's own (README, "cmdemux-cni error codes").
    /** The interface is no upper of any RDMA port's netdev: the kernel gives it no GID. */
    public static final int NOT_ON_RDMA_PORT = 100;
    /** The port has no GIDs of the type the network asks for. */
    public static final int GID_TYPE_MISSING = 101;
    /** An IPoIB child's P_Key is not in its port's P_Key table. */
    public static final int PKEY_NOT_IN_TABLE = 102;
    /** ib_core is in exclusive netns mode and the device is not the pod's. */
    public static final int EXCLUSIVE_NETNS_MODE = 103;
    /** Another namespace holds the same GID at a lower index: requests to this IP go there. */
    public static final int SAME_IP_ELSEWHERE = 104;
    /** An interface of prevResult is not in the pod's namespace. */
    public static final int INTERFACE_MISSING = 105;
    /** An address of prevResult is not on its interface. */
    public static final int ADDRESS_MISSING = 106;
    /** The daemon refused the registration. */
    public static final int REGISTRATION_REFUSED = 107;
    /** prevResult names no interface inside the pod's namespace. */
    public static final int NO_SANDBOX_INTERFACE = 108;
    /** Something failed inside the plugin; the details say what. */
    public static final int INTERNAL = 199;

    private final int code;
    private final String details;

    public CniError(int code, String msg, String details) {
        super(msg);
        this.code = code;
        this.details = details == null ? "" : details;
    }

    public int code() {
        return code;
    }

    public String msg() {
        return getMessage();
    }

    public String details() {
        return details;
    }
}
