package io.cmdemux.ingress.wire;

/** MsgRcptAck, IBTA Table 107. {@code messageMraed}: 0 REQ, 1 REP, 2 LAP. */
public record CmMra(int localCommId, int remoteCommId, int messageMraed, int serviceTimeout, Octets privateData)
        implements CmMessage {

    public static final int PRIVATE_DATA_SIZE = 222; // IB_CM_MRA_PRIVATE_DATA_SIZE

    public CmMra {
        Be.check("messageMraed", messageMraed, 2);
        Be.check("serviceTimeout", serviceTimeout, 5);
        privateData = privateData.padTo(PRIVATE_DATA_SIZE, "MRA private data");
    }

    @Override
    public CmAttribute attribute() {
        return CmAttribute.MRA;
    }
}
