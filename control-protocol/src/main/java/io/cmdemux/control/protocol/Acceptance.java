package io.cmdemux.control.protocol;

/**
 * A consumer's ACCEPT: the REP fields it decides (cm_rep_param), for the request {@code traceId}.
 *
 * @param qpn the consumer's QP number (24 bits)
 * @param startingPsn 24 bits
 */
public record Acceptance(long traceId, int qpn, int startingPsn, int responderResources, int initiatorDepth,
        int rnrRetryCount, boolean srq, boolean flowControl, byte[] privateData) {}
