package io.cmdemux.ingress.wire;

/** The data part (232 bytes) of one CM MAD. Each record holds every field of its IBTA table. */
public sealed interface CmMessage permits CmReq, CmMra, CmRej, CmRep, CmRtu, CmDreq, CmDrep, CmSidrReq, CmSidrRep {
    /** Bytes of CM data after the MAD header. */
    int DATA_SIZE = 232;

    CmAttribute attribute();

    Octets privateData();
}
