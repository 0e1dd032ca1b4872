package io.cmdemux.ingress.wire;

/** The 8-byte Datagram Extended Transport Header: Q_Key and source QP (IBTA 9.3.3). */
public record Deth(int qkey, int srcQp) {
    public static final int SIZE = 8;
    public static final int GSI_QKEY = 0x80010000; // IB_QP1_QKEY, include/rdma/ib_mad.h

    public Deth {
        Be.check("srcQp", srcQp, 24);
    }

    /** What a CM MAD from QP1 carries. */
    public static Deth gsi() {
        return new Deth(GSI_QKEY, Bth.GSI_QP);
    }

    static Deth decode(byte[] b, int o) {
        return new Deth(Be.u32(b, o), Be.u24(b, o + 5));
    }

    void encode(byte[] b, int o) {
        Be.put32(b, o, qkey);
        Be.put8(b, o + 4, 0);
        Be.put24(b, o + 5, srcQp);
    }
}
