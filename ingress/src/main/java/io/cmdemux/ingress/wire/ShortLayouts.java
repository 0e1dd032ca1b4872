package io.cmdemux.ingress.wire;

/**
 * Layouts of the CM messages other than REQ: IBTA Tables 107, 108, 110–113, 119, 120; offsets relative
 * to the CM data. Each is a handful of fields, so they share one class.
 */
final class ShortLayouts {
    private ShortLayouts() {}

    // Table 107 MRA
    static final int MRA_MESSAGE_MRAED = 8; // top 2 bits
    static final int MRA_SERVICE_TIMEOUT = 9; // top 5 bits
    static final int MRA_PRIVATE_DATA = 10;

    static CmMra decodeMra(byte[] b, int d) {
        return new CmMra(Be.u32(b, d), Be.u32(b, d + 4),
                Be.u8(b, d + MRA_MESSAGE_MRAED) >>> 6,
                Be.u8(b, d + MRA_SERVICE_TIMEOUT) >>> 3,
                Octets.copyOf(b, d + MRA_PRIVATE_DATA, CmMra.PRIVATE_DATA_SIZE));
    }

    static void encodeMra(CmMra m, byte[] b, int d) {
        Be.put32(b, d, m.localCommId());
        Be.put32(b, d + 4, m.remoteCommId());
        Be.put8(b, d + MRA_MESSAGE_MRAED, m.messageMraed() << 6);
        Be.put8(b, d + MRA_SERVICE_TIMEOUT, m.serviceTimeout() << 3);
        m.privateData().copyTo(b, d + MRA_PRIVATE_DATA);
    }

    // Table 108 REJ
    static final int REJ_MESSAGE_REJECTED = 8; // top 2 bits
    static final int REJ_INFO_LENGTH = 9; // top 7 bits
    static final int REJ_REASON = 10;
    static final int REJ_ARI = 12;
    static final int REJ_PRIVATE_DATA = 84;

    static CmRej decodeRej(byte[] b, int d) {
        return new CmRej(Be.u32(b, d), Be.u32(b, d + 4),
                Be.u8(b, d + REJ_MESSAGE_REJECTED) >>> 6,
                Be.u8(b, d + REJ_INFO_LENGTH) >>> 1,
                Be.u16(b, d + REJ_REASON),
                Octets.copyOf(b, d + REJ_ARI, CmRej.ARI_SIZE),
                Octets.copyOf(b, d + REJ_PRIVATE_DATA, CmRej.PRIVATE_DATA_SIZE));
    }

    static void encodeRej(CmRej m, byte[] b, int d) {
        Be.put32(b, d, m.localCommId());
        Be.put32(b, d + 4, m.remoteCommId());
        Be.put8(b, d + REJ_MESSAGE_REJECTED, m.messageRejected() << 6);
        Be.put8(b, d + REJ_INFO_LENGTH, m.rejectedInfoLength() << 1);
        Be.put16(b, d + REJ_REASON, m.reason());
        m.ari().copyTo(b, d + REJ_ARI);
        m.privateData().copyTo(b, d + REJ_PRIVATE_DATA);
    }

    // Table 110 REP
    static final int REP_LOCAL_Q_KEY = 8;
    static final int REP_LOCAL_QPN = 12; // 24 bits; vendor ID high byte at 15
    static final int REP_VENDOR_ID_H = 15;
    static final int REP_LOCAL_EECN = 16; // 24 bits; vendor ID middle byte at 19
    static final int REP_VENDOR_ID_M = 19;
    static final int REP_STARTING_PSN = 20; // 24 bits; vendor ID low byte at 23
    static final int REP_VENDOR_ID_L = 23;
    static final int REP_RESPONDER_RESOURCES = 24;
    static final int REP_INITIATOR_DEPTH = 25;
    static final int REP_BYTE_26 = 26; // target ACK delay:5, failover accepted:2, e2e flow control:1
    static final int REP_BYTE_27 = 27; // RNR retry count:3, SRQ:1, reserved:4
    static final int REP_LOCAL_CA_GUID = 28;
    static final int REP_PRIVATE_DATA = 36;

    static CmRep decodeRep(byte[] b, int d) {
        int b26 = Be.u8(b, d + REP_BYTE_26);
        int b27 = Be.u8(b, d + REP_BYTE_27);
        int vendor = (Be.u8(b, d + REP_VENDOR_ID_H) << 16)
                | (Be.u8(b, d + REP_VENDOR_ID_M) << 8)
                | Be.u8(b, d + REP_VENDOR_ID_L);
        return new CmRep(Be.u32(b, d), Be.u32(b, d + 4),
                Be.u32(b, d + REP_LOCAL_Q_KEY),
                Be.u24(b, d + REP_LOCAL_QPN),
                Be.u24(b, d + REP_LOCAL_EECN),
                Be.u24(b, d + REP_STARTING_PSN),
                vendor,
                Be.u8(b, d + REP_RESPONDER_RESOURCES),
                Be.u8(b, d + REP_INITIATOR_DEPTH),
                b26 >>> 3,
                (b26 >>> 1) & 0x3,
                (b26 & 0x1) != 0,
                b27 >>> 5,
                (b27 & 0x10) != 0,
                Be.u64(b, d + REP_LOCAL_CA_GUID),
                Octets.copyOf(b, d + REP_PRIVATE_DATA, CmRep.PRIVATE_DATA_SIZE));
    }

    static void encodeRep(CmRep m, byte[] b, int d) {
        Be.put32(b, d, m.localCommId());
        Be.put32(b, d + 4, m.remoteCommId());
        Be.put32(b, d + REP_LOCAL_Q_KEY, m.localQkey());
        Be.put24(b, d + REP_LOCAL_QPN, m.localQpn());
        Be.put8(b, d + REP_VENDOR_ID_H, m.vendorId() >>> 16);
        Be.put24(b, d + REP_LOCAL_EECN, m.localEecn());
        Be.put8(b, d + REP_VENDOR_ID_M, m.vendorId() >>> 8);
        Be.put24(b, d + REP_STARTING_PSN, m.startingPsn());
        Be.put8(b, d + REP_VENDOR_ID_L, m.vendorId());
        Be.put8(b, d + REP_RESPONDER_RESOURCES, m.responderResources());
        Be.put8(b, d + REP_INITIATOR_DEPTH, m.initiatorDepth());
        Be.put8(b, d + REP_BYTE_26,
                (m.targetAckDelay() << 3) | (m.failoverAccepted() << 1) | ReqLayout.bit(m.endToEndFlowControl()));
        Be.put8(b, d + REP_BYTE_27, (m.rnrRetryCount() << 5) | (ReqLayout.bit(m.srq()) << 4));
        Be.put64(b, d + REP_LOCAL_CA_GUID, m.localCaGuid());
        m.privateData().copyTo(b, d + REP_PRIVATE_DATA);
    }

    // Table 111 RTU and Table 113 DREP: two comm IDs and private data from byte 8
    static final int RTU_DREP_PRIVATE_DATA = 8;

    static CmRtu decodeRtu(byte[] b, int d) {
        return new CmRtu(
                Be.u32(b, d), Be.u32(b, d + 4), Octets.copyOf(b, d + RTU_DREP_PRIVATE_DATA, CmRtu.PRIVATE_DATA_SIZE));
    }

    static void encodeRtu(CmRtu m, byte[] b, int d) {
        Be.put32(b, d, m.localCommId());
        Be.put32(b, d + 4, m.remoteCommId());
        m.privateData().copyTo(b, d + RTU_DREP_PRIVATE_DATA);
    }

    static CmDrep decodeDrep(byte[] b, int d) {
        return new CmDrep(
                Be.u32(b, d), Be.u32(b, d + 4), Octets.copyOf(b, d + RTU_DREP_PRIVATE_DATA, CmDrep.PRIVATE_DATA_SIZE));
    }

    static void encodeDrep(CmDrep m, byte[] b, int d) {
        Be.put32(b, d, m.localCommId());
        Be.put32(b, d + 4, m.remoteCommId());
        m.privateData().copyTo(b, d + RTU_DREP_PRIVATE_DATA);
    }

    // Table 112 DREQ
    static final int DREQ_REMOTE_QPN_EECN = 8; // 24 bits
    static final int DREQ_PRIVATE_DATA = 12;

    static CmDreq decodeDreq(byte[] b, int d) {
        return new CmDreq(Be.u32(b, d), Be.u32(b, d + 4), Be.u24(b, d + DREQ_REMOTE_QPN_EECN),
                Octets.copyOf(b, d + DREQ_PRIVATE_DATA, CmDreq.PRIVATE_DATA_SIZE));
    }

    static void encodeDreq(CmDreq m, byte[] b, int d) {
        Be.put32(b, d, m.localCommId());
        Be.put32(b, d + 4, m.remoteCommId());
        Be.put24(b, d + DREQ_REMOTE_QPN_EECN, m.remoteQpnEecn());
        m.privateData().copyTo(b, d + DREQ_PRIVATE_DATA);
    }

    // Table 119 SIDR_REQ
    static final int SIDR_REQ_PKEY = 4;
    static final int SIDR_REQ_SERVICE_ID = 8;
    static final int SIDR_REQ_PRIVATE_DATA = 16;

    static CmSidrReq decodeSidrReq(byte[] b, int d) {
        return new CmSidrReq(Be.u32(b, d), Be.u16(b, d + SIDR_REQ_PKEY), Be.u64(b, d + SIDR_REQ_SERVICE_ID),
                Octets.copyOf(b, d + SIDR_REQ_PRIVATE_DATA, CmSidrReq.PRIVATE_DATA_SIZE));
    }

    static void encodeSidrReq(CmSidrReq m, byte[] b, int d) {
        Be.put32(b, d, m.requestId());
        Be.put16(b, d + SIDR_REQ_PKEY, m.pkey());
        Be.put64(b, d + SIDR_REQ_SERVICE_ID, m.serviceId());
        m.privateData().copyTo(b, d + SIDR_REQ_PRIVATE_DATA);
    }

    // Table 120 SIDR_REP
    static final int SIDR_REP_STATUS = 4;
    static final int SIDR_REP_INFO_LENGTH = 5;
    static final int SIDR_REP_VENDOR_ID_H = 6; // 16 bits
    static final int SIDR_REP_QPN = 8; // 24 bits; vendor ID low byte at 11
    static final int SIDR_REP_VENDOR_ID_L = 11;
    static final int SIDR_REP_SERVICE_ID = 12;
    static final int SIDR_REP_Q_KEY = 20;
    static final int SIDR_REP_ADDITIONAL_INFO = 24;
    static final int SIDR_REP_PRIVATE_DATA = 96;

    static CmSidrRep decodeSidrRep(byte[] b, int d) {
        int vendor = (Be.u16(b, d + SIDR_REP_VENDOR_ID_H) << 8) | Be.u8(b, d + SIDR_REP_VENDOR_ID_L);
        return new CmSidrRep(Be.u32(b, d),
                Be.u8(b, d + SIDR_REP_STATUS),
                Be.u8(b, d + SIDR_REP_INFO_LENGTH),
                vendor,
                Be.u24(b, d + SIDR_REP_QPN),
                Be.u64(b, d + SIDR_REP_SERVICE_ID),
                Be.u32(b, d + SIDR_REP_Q_KEY),
                Octets.copyOf(b, d + SIDR_REP_ADDITIONAL_INFO, CmSidrRep.ADDITIONAL_INFO_SIZE),
                Octets.copyOf(b, d + SIDR_REP_PRIVATE_DATA, CmSidrRep.PRIVATE_DATA_SIZE));
    }

    static void encodeSidrRep(CmSidrRep m, byte[] b, int d) {
        Be.put32(b, d, m.requestId());
        Be.put8(b, d + SIDR_REP_STATUS, m.status());
        Be.put8(b, d + SIDR_REP_INFO_LENGTH, m.additionalInfoLength());
        Be.put16(b, d + SIDR_REP_VENDOR_ID_H, m.vendorId() >>> 8);
        Be.put24(b, d + SIDR_REP_QPN, m.qpn());
        Be.put8(b, d + SIDR_REP_VENDOR_ID_L, m.vendorId());
        Be.put64(b, d + SIDR_REP_SERVICE_ID, m.serviceId());
        Be.put32(b, d + SIDR_REP_Q_KEY, m.qkey());
        m.additionalInfo().copyTo(b, d + SIDR_REP_ADDITIONAL_INFO);
        m.privateData().copyTo(b, d + SIDR_REP_PRIVATE_DATA);
    }
}
