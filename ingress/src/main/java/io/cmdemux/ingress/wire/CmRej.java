package io.cmdemux.ingress.wire;

/**
 * ConnectReject, IBTA Table 108. {@code messageRejected}: 0 REQ, 1 REP, 2 other. {@code reason} is the
 * raw 16-bit code; {@link #reasonName()} names it. {@code ari} is the whole 72-byte field, of which
 * the first {@code rejectedInfoLength} bytes are meaningful.
 */
public record CmRej(
        int localCommId,
        int remoteCommId,
        int messageRejected,
        int rejectedInfoLength,
        int reason,
        Octets ari,
        Octets privateData) implements CmMessage {

    public static final int ARI_SIZE = 72; // IB_CM_REJ_ARI_LENGTH
    public static final int PRIVATE_DATA_SIZE = 148; // IB_CM_REJ_PRIVATE_DATA_SIZE

    public CmRej {
        Be.check("messageRejected", messageRejected, 2);
        Be.check("rejectedInfoLength", rejectedInfoLength, 7);
        Be.check("reason", reason, 16);
        ari = ari.padTo(ARI_SIZE, "REJ ARI");
        privateData = privateData.padTo(PRIVATE_DATA_SIZE, "REJ private data");
    }

    /** A REJ answering a REQ: the sender's comm ID goes to remoteCommId, ours (may be 0) to localCommId. */
    public static CmRej ofReq(int localCommId, int remoteCommId, RejReason reason, Octets ari, Octets privateData) {
        int ariLength = Math.min(ari.length(), ARI_SIZE);
        return new CmRej(localCommId, remoteCommId, 0, ariLength, reason.code(), ari, privateData);
    }

    /** The named reason, or null for a code outside IBTA's list. */
    public RejReason reasonName() {
        return RejReason.byCode(reason);
    }

    @Override
    public CmAttribute attribute() {
        return CmAttribute.REJ;
    }
}
