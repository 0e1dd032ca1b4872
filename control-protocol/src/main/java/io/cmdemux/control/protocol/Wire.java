package io.cmdemux.control.protocol;

/**
 * The control protocol's numbers, named once (docs/PROTOCOL.md is the prose). The layout follows
 * the path-record seed's "data header": a fixed header with version, type, status, format, flags,
 * length and sequence number, then one or more stacked records. All integers are big-endian.
 */
public final class Wire {
    private Wire() {}

    // ---- data header ----
    public static final int VERSION = 1;
    public static final int HEADER_SIZE = 16;
    /** Frames a consumer may send: LISTEN, REJECT and QUERY are all far below this. */
    public static final int MAX_REQUEST_FRAME = 64 * 1024;
    /** Frames the daemon sends: QUERY answers (topology JSON of a large host) need room. */
    public static final int MAX_REPLY_FRAME = 16 * 1024 * 1024;

    // header.format: how the body is encoded
    public static final int FORMAT_NONE = 0;
    public static final int FORMAT_RECORDS = 1;

    // header.flags
    public static final int FLAG_REPLY = 0x0001;

    // header.type
    public static final int HELLO = 0x01;
    public static final int LISTEN = 0x02;
    public static final int UNLISTEN = 0x03;
    public static final int QUERY = 0x04;
    public static final int REQ = 0x05;
    public static final int REJECT = 0x06;
    /** consumer → daemon: answer a delivered REQ with a REP. */
    public static final int ACCEPT = 0x07;
    /** consumer → daemon: disconnect an established connection (DREQ). */
    public static final int DISCONNECT = 0x08;
    /** daemon → consumer: something happened to one of its connections (RTU, DREQ, DREP, REJ, timeout). */
    public static final int CM_EVENT = 0x09;
    public static final int POD_REGISTER = 0x0A;
    public static final int POD_UNREGISTER = 0x0B;
    public static final int CNI = 0x0C;
    /** `cmdemux VERB ...` → daemon: run a read verb on the daemon's live state (docs/PROTOCOL.md §4.2). */
    public static final int CLI = 0x0D;
    public static final int ERROR = 0x7F;

    // header.status: 0 or a Linux errno (<asm-generic/errno-base.h>, <asm-generic/errno.h>)
    public static final int OK = 0;
    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int EIO = 5;
    public static final int EAGAIN = 11;
    public static final int EACCES = 13;
    public static final int ENODEV = 19;
    public static final int EINVAL = 22;
    public static final int ENOSPC = 28;
    public static final int EPROTO = 71;
    public static final int EBADMSG = 74;
    public static final int EMSGSIZE = 90;
    public static final int EPROTONOSUPPORT = 93;
    public static final int EOPNOTSUPP = 95;
    public static final int EAFNOSUPPORT = 97;
    public static final int EADDRINUSE = 98;
    public static final int EADDRNOTAVAIL = 99;

    // ---- records ----
    public static final int RECORD_HEADER_SIZE = 8;
    /**
     * A receiver that does not know a record type with this bit must refuse the message (cf.
     * RDMA_NL_LS's mandatory bit).
     */
    public static final int RECORD_MANDATORY = 0x8000;

    public static final int R_TEXT = 1;
    public static final int R_LISTEN_SPEC = 2;
    public static final int R_LISTENER = 3;
    public static final int R_LISTENER_ID = 4;
    public static final int R_QUERY = 5;
    public static final int R_JSON = 6;
    public static final int R_DELIVERY = 7;
    public static final int R_META = 8;
    public static final int R_FRAME = 9;
    public static final int R_DECISION = 10;
    public static final int R_REJECT = 11;
    public static final int R_ARI = 12;
    public static final int R_PRIVATE_DATA = 13;
    public static final int R_CONSUMER = 14;
    public static final int R_NETNS_NAME = 15;
    public static final int R_CLIENT_NAME = 16;
    public static final int R_ACCEPT = 17;
    public static final int R_SESSION = 18;
    public static final int R_CM_EVENT = 19;
    public static final int R_CNI_ENV = 20;
    public static final int R_CNI_STDIN = 21;
    public static final int R_CNI_RESULT = 22;
    public static final int R_CNI_STDERR = 23;
    public static final int R_CLI_ARG = 24;
    public static final int R_CLI_RESULT = 25;
    public static final int R_CLI_STDERR = 26;

    // Address families in LISTEN_SPEC, as <sys/socket.h> numbers them.
    public static final int AF_INET = 2;
    public static final int AF_INET6 = 10;
    public static final int AF_IB = 27;

    // LISTEN_SPEC flags
    /**
     * afonly was chosen explicitly (rdma_set_option(RDMA_OPTION_ID_AFONLY)); without it the kernel's default applies.
     */
    public static final int LISTEN_AFONLY_SET = 0x01;
    public static final int LISTEN_AFONLY = 0x02;

    // Limits of the CM REJ message (IBTA 12.6.9; IB_CM_REJ_ARI_LENGTH, IB_CM_REJ_PRIVATE_DATA_SIZE in ib_cm.h).
    public static final int MAX_ARI = 72;
    public static final int MAX_REJECT_PRIVATE_DATA = 148;
    public static final int MAX_REP_PRIVATE_DATA = 196; // IB_CM_REP_PRIVATE_DATA_SIZE
    public static final int MAX_DREQ_PRIVATE_DATA = 220; // IB_CM_DREQ_PRIVATE_DATA_SIZE

    /** The abstract socket name every namespace gets; the kernel scopes abstract names per namespace. */
    public static final String ABSTRACT_NAME = "cmdemux";
    public static final String DEFAULT_HOST_SOCKET = "/run/cmdemux/cmdemux.sock";

    public static String typeName(int type) {
        switch (type) {
            case HELLO: return "HELLO";
            case LISTEN: return "LISTEN";
            case UNLISTEN: return "UNLISTEN";
            case QUERY: return "QUERY";
            case REQ: return "REQ";
            case REJECT: return "REJECT";
            case ACCEPT: return "ACCEPT";
            case DISCONNECT: return "DISCONNECT";
            case CM_EVENT: return "CM_EVENT";
            case POD_REGISTER: return "POD_REGISTER";
            case POD_UNREGISTER: return "POD_UNREGISTER";
            case CNI: return "CNI";
            case CLI: return "CLI";
            case ERROR: return "ERROR";
            default: return "type-0x" + Integer.toHexString(type);
        }
    }

    public static String errnoName(int status) {
        switch (status) {
            case OK: return "OK";
            case EPERM: return "EPERM";
            case ENOENT: return "ENOENT";
            case EIO: return "EIO";
            case EAGAIN: return "EAGAIN";
            case EACCES: return "EACCES";
            case ENODEV: return "ENODEV";
            case EINVAL: return "EINVAL";
            case ENOSPC: return "ENOSPC";
            case EPROTO: return "EPROTO";
            case EBADMSG: return "EBADMSG";
            case EMSGSIZE: return "EMSGSIZE";
            case EPROTONOSUPPORT: return "EPROTONOSUPPORT";
            case EOPNOTSUPP: return "EOPNOTSUPP";
            case EAFNOSUPPORT: return "EAFNOSUPPORT";
            case EADDRINUSE: return "EADDRINUSE";
            case EADDRNOTAVAIL: return "EADDRNOTAVAIL";
            default: return "errno " + status;
        }
    }
}
