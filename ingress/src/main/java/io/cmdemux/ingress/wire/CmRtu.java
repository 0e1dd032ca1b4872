package io.cmdemux.ingress.wire;

/** ReadyToUse, IBTA Table 111. */
public record CmRtu(int localCommId, int remoteCommId, Octets privateData) implements CmMessage {
    public static final int PRIVATE_DATA_SIZE = 224; // IB_CM_RTU_PRIVATE_DATA_SIZE

    public CmRtu {
        privateData = privateData.padTo(PRIVATE_DATA_SIZE, "RTU private data");
    }

    @Override
    public CmAttribute attribute() {
        return CmAttribute.RTU;
    }
}
