package io.cmdemux.ingress.wire;

/** ConnectRequest, IBTA Table 106 (CM_REQ_* in include/rdma/ibta_vol1_c12.h). */
public record CmReq(
        int localCommId,
        int vendorId,
        long serviceId,
        long localCaGuid,
        int localQkey,
        int localQpn,
        int responderResources,
        int localEecn,
        int initiatorDepth,
        int remoteEecn,
        int remoteCmResponseTimeout,
        int transportServiceType,
        boolean endToEndFlowControl,
        int startingPsn,
        int localCmResponseTimeout,
        int retryCount,
        int pkey,
        int pathMtu,
        boolean rdcExists,
        int rnrRetryCount,
        int maxCmRetries,
        boolean srq,
        int extendedTransportType,
        CmPath primaryPath,
        CmPath alternatePath,
        boolean sapSupported,
        Octets privateData) implements CmMessage {

    public static final int PRIVATE_DATA_SIZE = 92; // IB_CM_REQ_PRIVATE_DATA_SIZE

    public CmReq {
        Be.check("vendorId", vendorId, 24);
        Be.check("localQpn", localQpn, 24);
        Be.check("responderResources", responderResources, 8);
        Be.check("localEecn", localEecn, 24);
        Be.check("initiatorDepth", initiatorDepth, 8);
        Be.check("remoteEecn", remoteEecn, 24);
        Be.check("remoteCmResponseTimeout", remoteCmResponseTimeout, 5);
        Be.check("transportServiceType", transportServiceType, 2);
        Be.check("startingPsn", startingPsn, 24);
        Be.check("localCmResponseTimeout", localCmResponseTimeout, 5);
        Be.check("retryCount", retryCount, 3);
        Be.check("pkey", pkey, 16);
        Be.check("pathMtu", pathMtu, 4);
        Be.check("rnrRetryCount", rnrRetryCount, 3);
        Be.check("maxCmRetries", maxCmRetries, 4);
        Be.check("extendedTransportType", extendedTransportType, 3);
        if (primaryPath == null || alternatePath == null) {
            throw new IllegalArgumentException("both paths are required (use CmPath.NONE)");
        }
        privateData = privateData.padTo(PRIVATE_DATA_SIZE, "REQ private data");
    }

    @Override
    public CmAttribute attribute() {
        return CmAttribute.REQ;
    }
}
