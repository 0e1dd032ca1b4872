package io.cmdemux.ingress.wire;

/**
 * The 24-byte MAD common header (IBTA 13.4.3, struct ib_mad_hdr in include/rdma/ib_mad.h).
 * {@code method} includes the response bit 0x80.
 */
public record MadHeader(
        int baseVersion,
        int mgmtClass,
        int classVersion,
        int method,
        int status,
        int classSpecific,
        long transactionId,
        int attributeId,
        int attributeModifier) {

    // include/rdma/ib_mad.h
    public static final int SIZE = 24;
    public static final int BASE_VERSION = 1; // IB_MGMT_BASE_VERSION
    public static final int MGMT_CLASS_CM = 0x07; // IB_MGMT_CLASS_CM
    public static final int METHOD_SEND = 0x03; // IB_MGMT_METHOD_SEND
    // drivers/infiniband/core/cm_msgs.h
    public static final int CM_CLASS_VERSION = 2; // IB_CM_CLASS_VERSION

    public MadHeader {
        Be.check("baseVersion", baseVersion, 8);
        Be.check("mgmtClass", mgmtClass, 8);
        Be.check("classVersion", classVersion, 8);
        Be.check("method", method, 8);
        Be.check("status", status, 16);
        Be.check("classSpecific", classSpecific, 16);
        Be.check("attributeId", attributeId, 16);
    }

    /** The header the kernel's cm_format_mad_hdr writes: base version 1, class CM v2, method Send. */
    public static MadHeader cm(CmAttribute attribute, long transactionId) {
        return new MadHeader(
                BASE_VERSION, MGMT_CLASS_CM, CM_CLASS_VERSION, METHOD_SEND, 0, 0, transactionId, attribute.id(), 0);
    }
}
