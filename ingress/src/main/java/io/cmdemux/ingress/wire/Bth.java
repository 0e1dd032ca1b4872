package io.cmdemux.ingress.wire;

/** The 12-byte Base Transport Header (IBTA 9.2; struct rxe_bth in drivers/infiniband/sw/rxe/rxe_hdr.h). */
public record Bth(
        int opcode,
        boolean solicitedEvent,
        boolean migReq,
        int padCount,
        int tver,
        int pkey,
        boolean fecn,
        boolean becn,
        int destQp,
        boolean ackReq,
        int psn) {

    public static final int SIZE = 12;
    public static final int OPCODE_UD_SEND_ONLY = 0x64; // IB_OPCODE_UD_SEND_ONLY, include/rdma/ib_pack.h
    public static final int GSI_QP = 1; // QP1 carries CM MADs (IBTA 13.5.1)
    public static final int DEFAULT_PKEY = 0xffff;

    public Bth {
        Be.check("opcode", opcode, 8);
        Be.check("padCount", padCount, 2);
        Be.check("tver", tver, 4);
        Be.check("pkey", pkey, 16);
        Be.check("destQp", destQp, 24);
        Be.check("psn", psn, 24);
    }

    /** A UD SEND_ONLY to QP1, the header every CM MAD travels under. MigReq is set, as rxe and HCAs send it. */
    public static Bth cmMad(int pkey, int psn) {
        return new Bth(OPCODE_UD_SEND_ONLY, false, true, 0, 0, pkey, false, false, GSI_QP, false, psn);
    }

    static Bth decode(byte[] b, int o) {
        int b1 = Be.u8(b, o + 1);
        int b4 = Be.u8(b, o + 4);
        return new Bth(Be.u8(b, o), (b1 & 0x80) != 0, (b1 & 0x40) != 0, (b1 >>> 4) & 0x3, b1 & 0xf,
                Be.u16(b, o + 2), (b4 & 0x80) != 0, (b4 & 0x40) != 0, Be.u24(b, o + 5),
                (Be.u8(b, o + 8) & 0x80) != 0, Be.u24(b, o + 9));
    }

    void encode(byte[] b, int o) {
        Be.put8(b, o, opcode);
        Be.put8(b, o + 1, (solicitedEvent ? 0x80 : 0) | (migReq ? 0x40 : 0) | (padCount << 4) | tver);
        Be.put16(b, o + 2, pkey);
        Be.put8(b, o + 4, (fecn ? 0x80 : 0) | (becn ? 0x40 : 0));
        Be.put24(b, o + 5, destQp);
        Be.put8(b, o + 8, ackReq ? 0x80 : 0);
        Be.put24(b, o + 9, psn);
    }
}
