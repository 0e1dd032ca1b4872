package io.cmdemux.ingress.wire;

/** One CM MAD: the common header and the CM message it carries. */
public record Mad(MadHeader header, CmMessage message) {
    /** A MAD on the wire is always 256 bytes (IB_MGMT_MAD_SIZE). */
    public static final int SIZE = 256;

    public Mad {
        if (header.attributeId() != message.attribute().id()) {
            throw new IllegalArgumentException(String.format(
                    "header attribute 0x%04x does not match a %s message", header.attributeId(), message.attribute()));
        }
    }

    /** A CM Send MAD as the kernel formats it, with this transaction ID. */
    public static Mad of(CmMessage message, long transactionId) {
        return new Mad(MadHeader.cm(message.attribute(), transactionId), message);
    }
}
