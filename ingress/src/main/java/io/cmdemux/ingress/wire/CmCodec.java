package io.cmdemux.ingress.wire;

import io.cmdemux.netdev.MalformedException;

/**
 * Decodes and encodes whole 256-byte CM MADs. Byte offsets in the per-message codecs are those of the
 * IBTA tables (and of CM_*_LOC in include/rdma/ibta_vol1_c12.h): relative to the CM data, which starts
 * after the 24-byte MAD header. Reserved bits are written as zero and ignored on input.
 */
public final class CmCodec {
    private static final int OFF_BASE_VERSION = 0;
    private static final int OFF_MGMT_CLASS = 1;
    private static final int OFF_CLASS_VERSION = 2;
    private static final int OFF_METHOD = 3;
    private static final int OFF_STATUS = 4;
    private static final int OFF_CLASS_SPECIFIC = 6;
    private static final int OFF_TID = 8;
    private static final int OFF_ATTR_ID = 16;
    private static final int OFF_ATTR_MOD = 20;

    private CmCodec() {}

    /**
     * Decodes the MAD at {@code b[offset .. offset+length)}. Error offsets are indexes into {@code b}.
     *
     * @throws MalformedException if it is not exactly 256 bytes, not a CM MAD, or an attribute this codec does not know
     */
    public static Mad decode(byte[] b, int offset, int length) throws MalformedException {
        return decodeChecked(b, offset, check(b, offset, length));
    }

    /** What {@link #decode} checks, without building anything: the CM attribute the MAD carries. */
    static CmAttribute check(byte[] b, int offset, int length) throws MalformedException {
        if (length != Mad.SIZE) {
            throw new MalformedException(offset, "MAD is " + length + " bytes, a MAD has " + Mad.SIZE);
        }
        int baseVersion = Be.u8(b, offset + OFF_BASE_VERSION);
        if (baseVersion != MadHeader.BASE_VERSION) {
            throw new MalformedException(offset + OFF_BASE_VERSION, "MAD base version " + baseVersion + " is not 1");
        }
        int mgmtClass = Be.u8(b, offset + OFF_MGMT_CLASS);
        if (mgmtClass != MadHeader.MGMT_CLASS_CM) {
            throw new MalformedException(
                    offset + OFF_MGMT_CLASS, String.format("management class 0x%02x is not CM (0x07)", mgmtClass));
        }
        int attributeId = Be.u16(b, offset + OFF_ATTR_ID);
        CmAttribute attr = CmAttribute.byId(attributeId);
        if (attr == null) {
            throw new MalformedException(
                    offset + OFF_ATTR_ID, String.format("unknown CM attribute ID 0x%04x", attributeId));
        }
        return attr;
    }

    /** The MAD at {@code b[offset]}, which {@link #check} found to carry {@code attr}. */
    static Mad decodeChecked(byte[] b, int offset, CmAttribute attr) {
        int d = offset + MadHeader.SIZE;
        CmMessage m = switch (attr) {
            case REQ -> ReqLayout.decode(b, d);
            case MRA -> ShortLayouts.decodeMra(b, d);
            case REJ -> ShortLayouts.decodeRej(b, d);
            case REP -> ShortLayouts.decodeRep(b, d);
            case RTU -> ShortLayouts.decodeRtu(b, d);
            case DREQ -> ShortLayouts.decodeDreq(b, d);
            case DREP -> ShortLayouts.decodeDrep(b, d);
            case SIDR_REQ -> ShortLayouts.decodeSidrReq(b, d);
            case SIDR_REP -> ShortLayouts.decodeSidrRep(b, d);
        };
        return new Mad(decodeHeader(b, offset), m);
    }

    public static MadHeader decodeHeader(byte[] b, int o) {
        return new MadHeader(
                Be.u8(b, o + OFF_BASE_VERSION),
                Be.u8(b, o + OFF_MGMT_CLASS),
                Be.u8(b, o + OFF_CLASS_VERSION),
                Be.u8(b, o + OFF_METHOD),
                Be.u16(b, o + OFF_STATUS),
                Be.u16(b, o + OFF_CLASS_SPECIFIC),
                Be.u64(b, o + OFF_TID),
                Be.u16(b, o + OFF_ATTR_ID),
                Be.u32(b, o + OFF_ATTR_MOD));
    }

    public static byte[] encode(Mad mad) {
        byte[] out = new byte[Mad.SIZE];
        encode(mad, out, 0);
        return out;
    }

    /** Writes all 256 bytes, reserved ones as zero, at {@code out[offset]}. */
    public static void encode(Mad mad, byte[] out, int offset) {
        java.util.Arrays.fill(out, offset, offset + Mad.SIZE, (byte) 0);
        MadHeader h = mad.header();
        Be.put8(out, offset + OFF_BASE_VERSION, h.baseVersion());
        Be.put8(out, offset + OFF_MGMT_CLASS, h.mgmtClass());
        Be.put8(out, offset + OFF_CLASS_VERSION, h.classVersion());
        Be.put8(out, offset + OFF_METHOD, h.method());
        Be.put16(out, offset + OFF_STATUS, h.status());
        Be.put16(out, offset + OFF_CLASS_SPECIFIC, h.classSpecific());
        Be.put64(out, offset + OFF_TID, h.transactionId());
        Be.put16(out, offset + OFF_ATTR_ID, h.attributeId());
        Be.put32(out, offset + OFF_ATTR_MOD, h.attributeModifier());
        int d = offset + MadHeader.SIZE;
        CmMessage m = mad.message();
        if (m instanceof CmReq req) {
            ReqLayout.encode(req, out, d);
        } else if (m instanceof CmMra mra) {
            ShortLayouts.encodeMra(mra, out, d);
        } else if (m instanceof CmRej rej) {
            ShortLayouts.encodeRej(rej, out, d);
        } else if (m instanceof CmRep rep) {
            ShortLayouts.encodeRep(rep, out, d);
        } else if (m instanceof CmRtu rtu) {
            ShortLayouts.encodeRtu(rtu, out, d);
        } else if (m instanceof CmDreq dreq) {
            ShortLayouts.encodeDreq(dreq, out, d);
        } else if (m instanceof CmDrep drep) {
            ShortLayouts.encodeDrep(drep, out, d);
        } else if (m instanceof CmSidrReq sreq) {
            ShortLayouts.encodeSidrReq(sreq, out, d);
        } else if (m instanceof CmSidrRep srep) {
            ShortLayouts.encodeSidrRep(srep, out, d);
        } else {
            throw new IllegalStateException("unhandled " + m.getClass());
        }
    }
}
