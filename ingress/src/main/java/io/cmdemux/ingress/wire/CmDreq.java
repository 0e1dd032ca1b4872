package io.cmdemux.ingress.wire;

/** DisconnectRequest, IBTA Table 112. */
public record CmDreq(int localCommId, int remoteCommId, int remoteQpnEecn, Octets privateData) implements CmMessage {
    public static final int PRIVATE_DATA_SIZE = 220; // IB_CM_DREQ_PRIVATE_DATA_SIZE

    public CmDreq {
        Be.check("remoteQpnEecn", remoteQpnEecn, 24);
        privateData = privateData.padTo(PRIVATE_DATA_SIZE, "DREQ private data");
    }

    @Override
    public CmAttribute attribute() {
        return CmAttribute.DREQ;
    }
}
