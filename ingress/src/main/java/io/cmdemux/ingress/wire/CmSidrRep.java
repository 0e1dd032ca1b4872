package io.cmdemux.ingress.wire;

/**
 * ServiceIDResReqResp, IBTA Table 120. {@code vendorId} is the 24-bit ECE vendor ID over bytes 6–7 and
 * 11 (CM_SIDR_REP_VENDOR_ID_H/L).
 */
public record CmSidrRep(
        int requestId,
        int status,
        int additionalInfoLength,
        int vendorId,
        int qpn,
        long serviceId,
        int qkey,
        Octets additionalInfo,
        Octets privateData) implements CmMessage {

    public static final int ADDITIONAL_INFO_SIZE = 72; // IB_CM_SIDR_REP_INFO_LENGTH
    public static final int PRIVATE_DATA_SIZE = 136; // IB_CM_SIDR_REP_PRIVATE_DATA_SIZE

    public CmSidrRep {
        Be.check("status", status, 8);
        Be.check("additionalInfoLength", additionalInfoLength, 8);
        Be.check("vendorId", vendorId, 24);
        Be.check("qpn", qpn, 24);
        additionalInfo = additionalInfo.padTo(ADDITIONAL_INFO_SIZE, "SIDR_REP additional information");
        privateData = privateData.padTo(PRIVATE_DATA_SIZE, "SIDR_REP private data");
    }

    @Override
    public CmAttribute attribute() {
        return CmAttribute.SIDR_REP;
    }
}
