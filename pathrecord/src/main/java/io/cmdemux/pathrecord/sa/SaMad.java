package io.cmdemux.pathrecord.sa;

import io.cmdemux.gid.Gid;
import io.cmdemux.netdev.MalformedException;
import io.cmdemux.pathrecord.PathQuery;
import io.cmdemux.pathrecord.PathRecord;
import java.nio.ByteBuffer;

/**
 * SubnAdmGet(PathRecord) MADs, built and read as plain bytes (IBTA 13.4 MAD header, 15.2.1 SA
 * header; infiniband/umad_types.h and umad_sa.h). Everything on the wire is big-endian.
 */
public final class SaMad {
    public static final int MAD_SIZE = 256;
    // umad_types.h / umad_sa.h
    public static final int BASE_VERSION = 1;
    public static final int MGMT_CLASS_SUBN_ADM = 0x03;
    public static final int SA_CLASS_VERSION = 2;
    public static final int METHOD_GET = 0x01;
    public static final int METHOD_GET_RESP = 0x81;
    public static final int ATTR_PATH_RECORD = 0x0035;
    public static final int QP1_QKEY = 0x80010000;
    /**
     * Offsets: MAD header 0..23, RMPP header 24..35, SM_Key 36..43, attribute offset 44, component mask 48, data 56.
     */
    static final int OFF_STATUS = 4;

    static final int OFF_TID = 8;
    static final int OFF_ATTR_ID = 16;
    static final int OFF_ATTR_OFFSET = 44;
    static final int OFF_COMP_MASK = 48;
    static final int OFF_DATA = 56;

    // PathRecord component mask bits (IBTA 15.2.5.16; the kernel's IB_SA_PATH_REC_*)
    public static final long CM_SERVICE_ID = 0x3;
    public static final long CM_DGID = 1L << 2;
    public static final long CM_SGID = 1L << 3;
    public static final long CM_DLID = 1L << 4;
    public static final long CM_SLID = 1L << 5;
    public static final long CM_TRAFFIC_CLASS = 1L << 10;
    public static final long CM_REVERSIBLE = 1L << 11;
    public static final long CM_NUMB_PATH = 1L << 12;
    public static final long CM_PKEY = 1L << 13;
    public static final long CM_QOS_CLASS = 1L << 14;

    // umad_sa.h UMAD_SA_STATUS_* in bits 14..8 of the MAD status (class-specific), 4..2 common
    public static final int SA_STATUS_NO_RECORDS = 3;

    private SaMad() {}

    /** The component mask for a query: one bit per component it fixes (ib_nl_set_path_rec_attrs in reverse). */
    public static long componentMask(PathQuery q) {
        long m = CM_DGID | CM_NUMB_PATH;
        if (q.sgid() != null) {
            m |= CM_SGID;
        }
        if (q.serviceId().isPresent()) {
            m |= CM_SERVICE_ID;
        }
        if (q.tclass().isPresent()) {
            m |= CM_TRAFFIC_CLASS;
        }
        if (q.pkey().isPresent()) {
            m |= CM_PKEY;
        }
        if (q.qosClass().isPresent()) {
            m |= CM_QOS_CLASS;
        }
        if (q.reversible()) {
            m |= CM_REVERSIBLE;
        }
        if (q.dlid().isPresent()) {
            m |= CM_DLID;
        }
        return m;
    }

    /** A SubnAdmGet(PathRecord) request with transaction ID {@code tid}. */
    public static byte[] pathRecordGet(PathQuery q, long tid) {
        byte[] mad = new byte[MAD_SIZE];
        ByteBuffer b = ByteBuffer.wrap(mad);
        b.put(0, (byte) BASE_VERSION)
                .put(1, (byte) MGMT_CLASS_SUBN_ADM)
                .put(2, (byte) SA_CLASS_VERSION)
                .put(3, (byte) METHOD_GET);
        b.putLong(OFF_TID, tid);
        b.putShort(OFF_ATTR_ID, (short) ATTR_PATH_RECORD);
        b.putLong(OFF_COMP_MASK, componentMask(q));
        PathRecord template = new PathRecord(q.serviceId().orElse(0), q.dgid(), q.sgid() == null ? Gid.ZERO : q.sgid(),
                q.dlid().orElse(0), 0, false, 0, 0, q.tclass().orElse(0), q.reversible(), 1, q.pkey().orElse(0),
                q.qosClass().orElse(0), 0, 0, 0, 0, 0, 0, 0, 0);
        template.write(mad, OFF_DATA);
        return mad;
    }

    /** A received SA response: its TID, MAD status and, when successful, the record. */
    public record Response(long tid, int method, int status, PathRecord record) {
        public boolean ok() {
            return status == 0 && record != null;
        }

        /** The SA's class-specific status (umad_sa.h UMAD_SA_STATUS_*), bits 14..8. */
        public int saStatus() {
            return (status >> 8) & 0x7f;
        }
    }

    public static Response read(byte[] mad, int length) throws MalformedException {
        if (length < OFF_DATA + PathRecord.WIRE_SIZE) {
            throw new MalformedException(0, "SA response of " + length + " bytes is shorter than a PathRecord MAD");
        }
        ByteBuffer b = ByteBuffer.wrap(mad);
        if (mad[1] != MGMT_CLASS_SUBN_ADM) {
            throw new MalformedException(
                    1, "management class 0x" + Integer.toHexString(mad[1] & 0xff) + " is not SubnAdm");
        }
        int method = mad[3] & 0xff;
        int status = Short.toUnsignedInt(b.getShort(OFF_STATUS));
        long tid = b.getLong(OFF_TID);
        int attr = Short.toUnsignedInt(b.getShort(OFF_ATTR_ID));
        PathRecord rec = null;
        if (status == 0 && attr == ATTR_PATH_RECORD) {
            rec = PathRecord.read(mad, OFF_DATA);
        }
        return new Response(tid, method, status, rec);
    }
}
