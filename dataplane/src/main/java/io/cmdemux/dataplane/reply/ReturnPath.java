package io.cmdemux.dataplane.reply;

import io.cmdemux.gid.Gid;
import io.cmdemux.ingress.wire.CmMessage;
import io.cmdemux.ingress.wire.CmMra;
import io.cmdemux.ingress.wire.CmReq;
import io.cmdemux.ingress.wire.Octets;
import io.cmdemux.ingress.wire.RoceFrame;
import io.cmdemux.ingress.wire.RoceFrameBuilder;
import java.util.Arrays;

/**
 * What answering a request takes, kept instead of the request: the headers every answer to it
 * carries ({@link RoceFrameBuilder#writeReplyHeaders}), its transaction ID, its sender's address
 * (for the REJ limiter) and, for a REQ, the sender's comm ID and CA GUID.
 *
 * @param req whether the request was a REQ (else a SIDR REQ, with no comm ID)
 */
public record ReturnPath(byte[] headers, long transactionId, Gid requester, boolean req, int remoteCommId,
        long remoteCaGuid) {
    /** The UDP source port of everything the daemon sends. */
    public static final int UDP_SOURCE_PORT = 0xc000;
    /** CMA_CM_MRA_SETTING: the service timeout of the MRA rdma_cm sends for a REQ it hands to its user. */
    public static final int MRA_SERVICE_TIMEOUT = 24;

    public static ReturnPath of(RoceFrame request) {
        byte[] h = new byte[RoceFrameBuilder.MAX_REPLY_HEADERS];
        int n = RoceFrameBuilder.writeReplyHeaders(request, UDP_SOURCE_PORT, 0, h, 0);
        long tid = request.mad().header().transactionId();
        Gid source = request.l3().src();
        if (request.mad().message() instanceof CmReq r) {
            return new ReturnPath(Arrays.copyOf(h, n), tid, source, true, r.localCommId(), r.localCaGuid());
        }
        return new ReturnPath(Arrays.copyOf(h, n), tid, source, false, 0, 0);
    }

    /** The frame that answers the request with {@code message}. */
    public byte[] answer(CmMessage message) {
        return RoceFrameBuilder.reply(headers, 0, headers.length, message, transactionId);
    }

    /** The MRA rdma_cm sends for a REQ it has handed to its listener (CMA_CM_MRA_SETTING), from {@code localCommId}. */
    public byte[] mra(int localCommId) {
        return answer(mra(localCommId, remoteCommId));
    }

    /** CMA_CM_MRA_SETTING's MRA for the REQ: a service timeout, no private data. */
    public static CmMra mra(int localCommId, int remoteCommId) {
        return new CmMra(localCommId, remoteCommId, 0, MRA_SERVICE_TIMEOUT, Octets.zeros(0));
    }
}
