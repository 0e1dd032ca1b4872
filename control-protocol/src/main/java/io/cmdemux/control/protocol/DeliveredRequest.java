package io.cmdemux.control.protocol;

import io.cmdemux.ingress.resolve.PacketMeta;

/**
 * A REQ as the consumer receives it.
 *
 * @param frame the RoCEv2 frame as it arrived at the soft port
 * @param netnsName the name of the namespace the decision reached, "" when unnamed
 */
public record DeliveredRequest(long traceId, long listenerId, PacketMeta meta, byte[] frame, DecisionSummary decision,
        String netnsName) {
    public DeliveredRequest {
        frame = frame.clone();
    }

    @Override
    public byte[] frame() {
        return frame.clone();
    }
}
