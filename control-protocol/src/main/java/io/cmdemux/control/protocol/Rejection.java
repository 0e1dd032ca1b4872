package io.cmdemux.control.protocol;

/**
 * A consumer's REJECT of one delivered request.
 *
 * @param reason the CM REJ reason (IBTA Table 112), 16 bits
 * @param ari additional rejection information, at most 72 bytes
 * @param privateData at most 148 bytes
 */
public record Rejection(long traceId, int reason, byte[] ari, byte[] privateData) {
    public Rejection {
        ari = ari == null ? new byte[0] : ari.clone();
        privateData = privateData == null ? new byte[0] : privateData.clone();
    }

    @Override
    public byte[] ari() {
        return ari.clone();
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }
}
