package io.cmdemux.ingress.wire;

/** The CM attribute IDs this codec handles (drivers/infiniband/core/cm_msgs.h, CM_*_ATTR_ID). */
public enum CmAttribute {
    REQ(0x10, "ConnectRequest"),
    MRA(0x11, "MsgRcptAck"),
    REJ(0x12, "ConnectReject"),
    REP(0x13, "ConnectReply"),
    RTU(0x14, "ReadyToUse"),
    DREQ(0x15, "DisconnectRequest"),
    DREP(0x16, "DisconnectReply"),
    SIDR_REQ(0x17, "ServiceIDResReq"),
    SIDR_REP(0x18, "ServiceIDResReqResp");

    private final int id;
    private final String ibtaName;

    CmAttribute(int id, String ibtaName) {
        this.id = id;
        this.ibtaName = ibtaName;
    }

    public int id() {
        return id;
    }

    /** The name IBTA and tshark's Info column use, e.g. "ConnectRequest". */
    public String ibtaName() {
        return ibtaName;
    }

    private static final CmAttribute[] ALL = values(); // values() copies the array on every call

    /** The attribute with this ID, or null: LAP, APR and ClassPortInfo are not handled. */
    public static CmAttribute byId(int id) {
        int i = id - REQ.id;
        return i >= 0 && i < ALL.length ? ALL[i] : null;
    }
}
