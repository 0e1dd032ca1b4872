package io.cmdemux.pathrecord;

import io.cmdemux.gid.Gid;

/**
 * An SA PathRecord (IBTA 15.2.5.16) with the fields the kernel unpacks (sa_query.c path_rec_table).
 * Its wire image is 64 bytes, big-endian, the {@code path_rec} of {@code struct ib_path_rec_data}
 * (rdma/ib_user_sa.h). Selector fields use the SA encoding: 0 greater than, 1 less than, 2 exactly,
 * 3 largest (rate, MTU) or smallest (packet lifetime) available. MTU, rate and packet lifetime are
 * the IBTA enum values (MTU 1=256 .. 5=4096; rate 2=2.5 Gb/s, 3=10 Gb/s, ...; lifetime 4.096 µs·2^n).
 */
public record PathRecord(
        long serviceId,
        Gid dgid,
        Gid sgid,
        int dlid,
        int slid,
        boolean rawTraffic,
        int flowLabel,
        int hopLimit,
        int tclass,
        boolean reversible,
        int numbPath,
        int pkey,
        int qosClass,
        int sl,
        int mtuSelector,
        int mtu,
        int rateSelector,
        int rate,
        int packetLifeTimeSelector,
        int packetLifeTime,
        int preference) {

    /** sizeof(((struct ib_path_rec_data *)0)->path_rec): 16 u32 words. */
    public static final int WIRE_SIZE = 64;
    public static final int SELECTOR_EXACTLY = 2;

    public PathRecord {
        if (dgid == null) {
            dgid = Gid.ZERO;
        }
        if (sgid == null) {
            sgid = Gid.ZERO;
        }
        check("dlid", dlid, 0xffff);
        check("slid", slid, 0xffff);
        check("flowLabel", flowLabel, 0xfffff);
        check("hopLimit", hopLimit, 0xff);
        check("tclass", tclass, 0xff);
        check("numbPath", numbPath, 0x7f);
        check("pkey", pkey, 0xffff);
        check("qosClass", qosClass, 0xfff);
        check("sl", sl, 0xf);
        check("mtuSelector", mtuSelector, 3);
        check("mtu", mtu, 0x3f);
        check("rateSelector", rateSelector, 3);
        check("rate", rate, 0x3f);
        check("packetLifeTimeSelector", packetLifeTimeSelector, 3);
        check("packetLifeTime", packetLifeTime, 0x3f);
        check("preference", preference, 0xff);
    }

    private static void check(String name, int v, int max) {
        if (v < 0 || v > max) {
            throw new IllegalArgumentException(name + " " + v + " out of range 0.." + max);
        }
    }

    /**
     * Reads the 64-byte wire image at {@code off}, field by field as ib_unpack walks path_rec_table:
     * word offsets and bit positions counted from the most significant bit.
     */
    public static PathRecord read(byte[] b, int off) {
        if (b.length - off < WIRE_SIZE) {
            throw new IllegalArgumentException("a PathRecord has 64 bytes, only " + (b.length - off) + " left");
        }
        int w11 = be32(b, off + 44);
        int w13 = be32(b, off + 52);
        int w14 = be32(b, off + 56);
        return new PathRecord(
                be64(b, off),
                Gid.read(b, off + 8),
                Gid.read(b, off + 24),
                be16(b, off + 40),
                be16(b, off + 42),
                (w11 >>> 31) != 0,
                (w11 >>> 8) & 0xfffff,
                w11 & 0xff,
                b[off + 48] & 0xff,
                (b[off + 49] & 0x80) != 0,
                b[off + 49] & 0x7f,
                be16(b, off + 50),
                (w13 >>> 20) & 0xfff,
                (w13 >>> 16) & 0xf,
                (w13 >>> 14) & 3,
                (w13 >>> 8) & 0x3f,
                (w13 >>> 6) & 3,
                w13 & 0x3f,
                (w14 >>> 30) & 3,
                (w14 >>> 24) & 0x3f,
                (w14 >>> 16) & 0xff);
    }

    /** Writes the wire image at {@code off}; the 48 reserved bits at the end are zero (ib_pack). */
    public void write(byte[] b, int off) {
        putBe64(b, off, serviceId);
        dgid.write(b, off + 8);
        sgid.write(b, off + 24);
        putBe16(b, off + 40, dlid);
        putBe16(b, off + 42, slid);
        putBe32(b, off + 44, (rawTraffic ? 1 << 31 : 0) | (flowLabel << 8) | hopLimit);
        b[off + 48] = (byte) tclass;
        b[off + 49] = (byte) ((reversible ? 0x80 : 0) | numbPath);
        putBe16(b, off + 50, pkey);
        putBe32(b, off + 52,
                (qosClass << 20) | (sl << 16) | (mtuSelector << 14) | (mtu << 8) | (rateSelector << 6) | rate);
        putBe32(b, off + 56, (packetLifeTimeSelector << 30) | (packetLifeTime << 24) | (preference << 16));
        putBe16(b, off + 60, 0);
        putBe16(b, off + 62, 0);
    }

    public byte[] toBytes() {
        byte[] b = new byte[WIRE_SIZE];
        write(b, 0);
        return b;
    }

    /** The packet lifetime in nanoseconds: 4.096 µs · 2^packetLifeTime (IBTA 9.7.6.1.3). */
    public long packetLifeTimeNanos() {
        int e = Math.min(packetLifeTime, 40);
        return (long) (4096.0 * Math.pow(2, e));
    }

    // ---- copies with one field changed, for policy actions ----

    public PathRecord withSl(int v) {
        return new PathRecord(serviceId, dgid, sgid, dlid, slid, rawTraffic, flowLabel, hopLimit, tclass, reversible,
                numbPath, pkey, qosClass, v, mtuSelector, mtu, rateSelector, rate, packetLifeTimeSelector,
                packetLifeTime, preference);
    }

    public PathRecord withMtu(int v) {
        return new PathRecord(serviceId, dgid, sgid, dlid, slid, rawTraffic, flowLabel, hopLimit, tclass, reversible,
                numbPath, pkey, qosClass, sl, mtuSelector, v, rateSelector, rate, packetLifeTimeSelector,
                packetLifeTime, preference);
    }

    public PathRecord withRate(int v) {
        return new PathRecord(serviceId, dgid, sgid, dlid, slid, rawTraffic, flowLabel, hopLimit, tclass, reversible,
                numbPath, pkey, qosClass, sl, mtuSelector, mtu, rateSelector, v, packetLifeTimeSelector, packetLifeTime,
                preference);
    }

    static int be16(byte[] b, int off) {
        return ((b[off] & 0xff) << 8) | (b[off + 1] & 0xff);
    }

    static int be32(byte[] b, int off) {
        return ((b[off] & 0xff) << 24) | ((b[off + 1] & 0xff) << 16) | ((b[off + 2] & 0xff) << 8) | (b[off + 3] & 0xff);
    }

    static long be64(byte[] b, int off) {
        return ((long) be32(b, off) << 32) | (be32(b, off + 4) & 0xffffffffL);
    }

    static void putBe16(byte[] b, int off, int v) {
        b[off] = (byte) (v >>> 8);
        b[off + 1] = (byte) v;
    }

    static void putBe32(byte[] b, int off, int v) {
        b[off] = (byte) (v >>> 24);
        b[off + 1] = (byte) (v >>> 16);
        b[off + 2] = (byte) (v >>> 8);
        b[off + 3] = (byte) v;
    }

    static void putBe64(byte[] b, int off, long v) {
        putBe32(b, off, (int) (v >>> 32));
        putBe32(b, off + 4, (int) v);
    }
}
