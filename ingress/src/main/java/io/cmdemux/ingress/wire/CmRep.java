package io.cmdemux.ingress.wire;

/**
 * ConnectReply, IBTA Table 110. {@code vendorId} is the 24-bit ECE vendor ID that the kernel splits over
 * the reserved bytes 15, 19 and 23 (CM_REP_VENDOR_ID_H/M/L).
 */
public record CmRep(
        int localCommId,
        int remoteCommId,
        int localQkey,
        int localQpn,
        int localEecn,
        int startingPsn,
        int vendorId,
        int responderResources,
        int initiatorDepth,
        int targetAckDelay,
        int failoverAccepted,
        boolean endToEndFlowControl,
        int rnrRetryCount,
        boolean srq,
        long localCaGuid,
        Octets privateData) implements CmMessage {

    public static final int PRIVATE_DATA_SIZE = 196; // IB_CM_REP_PRIVATE_DATA_SIZE

    public CmRep {
        Be.check("localQpn", localQpn, 24);
        Be.check("localEecn", localEecn, 24);
        Be.check("startingPsn", startingPsn, 24);
        Be.check("vendorId", vendorId, 24);
        Be.check("responderResources", responderResources, 8);
        Be.check("initiatorDepth", initiatorDepth, 8);
        Be.check("targetAckDelay", targetAckDelay, 5);
        Be.check("failoverAccepted", failoverAccepted, 2);
        Be.check("rnrRetryCount", rnrRetryCount, 3);
        privateData = privateData.padTo(PRIVATE_DATA_SIZE, "REP private data");
    }

    @Override
    public CmAttribute attribute() {
        return CmAttribute.REP;
    }
}
