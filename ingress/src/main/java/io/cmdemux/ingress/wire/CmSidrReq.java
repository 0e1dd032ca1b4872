package io.cmdemux.ingress.wire;

/** ServiceIDResReq, IBTA Table 119. */
public record CmSidrReq(int requestId, int pkey, long serviceId, Octets privateData) implements CmMessage {
    public static final int PRIVATE_DATA_SIZE = 216; // IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE

    public CmSidrReq {
        Be.check("pkey", pkey, 16);
        privateData = privateData.padTo(PRIVATE_DATA_SIZE, "SIDR_REQ private data");
    }

    @Override
    public CmAttribute attribute() {
        return CmAttribute.SIDR_REQ;
    }
}
