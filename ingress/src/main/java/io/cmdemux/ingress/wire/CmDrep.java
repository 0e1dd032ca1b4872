package io.cmdemux.ingress.wire;

/** DisconnectReply, IBTA Table 113. */
public record CmDrep(int localCommId, int remoteCommId, Octets privateData) implements CmMessage {
    public static final int PRIVATE_DATA_SIZE = 224; // IB_CM_DREP_PRIVATE_DATA_SIZE

    public CmDrep {
        privateData = privateData.padTo(PRIVATE_DATA_SIZE, "DREP private data");
    }

    @Override
    public CmAttribute attribute() {
        return CmAttribute.DREP;
    }
}
