package io.cmdemux.ingress.wire;

import io.cmdemux.gid.Gid;

/**
 * The REQ layout, IBTA Table 106; offsets relative to the CM data. Bit positions follow the spec's
 * Byte[Bit] notation as CM_FIELD_BLOC does: bit 0 is the most significant bit of the byte.
 */
final class ReqLayout {
    static final int LOCAL_COMM_ID = 0;
    static final int VENDOR_ID = 5; // 24 bits, bytes 5-7 (ECE)
    static final int SERVICE_ID = 8;
    static final int LOCAL_CA_GUID = 16;
    static final int LOCAL_Q_KEY = 28;
    static final int LOCAL_QPN = 32; // 24 bits, responder resources in byte 35
    static final int RESPONDER_RESOURCES = 35;
    static final int LOCAL_EECN = 36; // 24 bits, initiator depth in byte 39
    static final int INITIATOR_DEPTH = 39;
    static final int REMOTE_EECN = 40; // 24 bits
    static final int BYTE_43 = 43; // remote CM response timeout:5, transport service type:2, e2e flow control:1
    static final int STARTING_PSN = 44; // 24 bits
    static final int BYTE_47 = 47; // local CM response timeout:5, retry count:3
    static final int PARTITION_KEY = 48;
    static final int BYTE_50 = 50; // path MTU:4, RDC exists:1, RNR retry count:3
    static final int BYTE_51 = 51; // max CM retries:4, SRQ:1, extended transport type:3
    static final int PRIMARY_PATH = 52;
    static final int ALTERNATE_PATH = 96;
    static final int SAP_SUPPORTED_BYTE = 139; // bit 5 of the alternate path's last byte
    static final int PRIVATE_DATA = 140;

    // Offsets inside one 44-byte path block (primary at 52, alternate at 96).
    static final int P_LOCAL_LID = 0;
    static final int P_REMOTE_LID = 2;
    static final int P_LOCAL_GID = 4;
    static final int P_REMOTE_GID = 20;
    static final int P_FLOW_LABEL = 36; // 20 bits from the top of the word at 36; then 6 reserved bits
    static final int P_PACKET_RATE = 39; // low 6 bits of byte 39
    static final int P_TRAFFIC_CLASS = 40;
    static final int P_HOP_LIMIT = 41;
    static final int P_SL_BYTE = 42; // SL:4, subnet local:1, reserved:3
    static final int P_ACK_TIMEOUT_BYTE = 43; // local ACK timeout:5, reserved:3 (SAP supported in the alternate)

    private ReqLayout() {}

    static CmReq decode(byte[] b, int d) {
        int b43 = Be.u8(b, d + BYTE_43);
        int b47 = Be.u8(b, d + BYTE_47);
        int b50 = Be.u8(b, d + BYTE_50);
        int b51 = Be.u8(b, d + BYTE_51);
        return new CmReq(
                Be.u32(b, d + LOCAL_COMM_ID),
                Be.u24(b, d + VENDOR_ID),
                Be.u64(b, d + SERVICE_ID),
                Be.u64(b, d + LOCAL_CA_GUID),
                Be.u32(b, d + LOCAL_Q_KEY),
                Be.u24(b, d + LOCAL_QPN),
                Be.u8(b, d + RESPONDER_RESOURCES),
                Be.u24(b, d + LOCAL_EECN),
                Be.u8(b, d + INITIATOR_DEPTH),
                Be.u24(b, d + REMOTE_EECN),
                b43 >>> 3,
                (b43 >>> 1) & 0x3,
                (b43 & 0x1) != 0,
                Be.u24(b, d + STARTING_PSN),
                b47 >>> 3,
                b47 & 0x7,
                Be.u16(b, d + PARTITION_KEY),
                b50 >>> 4,
                (b50 & 0x8) != 0,
                b50 & 0x7,
                b51 >>> 4,
                (b51 & 0x8) != 0,
                b51 & 0x7,
                decodePath(b, d + PRIMARY_PATH),
                decodePath(b, d + ALTERNATE_PATH),
                (Be.u8(b, d + SAP_SUPPORTED_BYTE) & 0x4) != 0,
                Octets.copyOf(b, d + PRIVATE_DATA, CmReq.PRIVATE_DATA_SIZE));
    }

    static CmPath decodePath(byte[] b, int p) {
        int slByte = Be.u8(b, p + P_SL_BYTE);
        return new CmPath(
                Be.u16(b, p + P_LOCAL_LID),
                Be.u16(b, p + P_REMOTE_LID),
                Gid.read(b, p + P_LOCAL_GID),
                Gid.read(b, p + P_REMOTE_GID),
                Be.u32(b, p + P_FLOW_LABEL) >>> 12,
                Be.u8(b, p + P_PACKET_RATE) & 0x3f,
                Be.u8(b, p + P_TRAFFIC_CLASS),
                Be.u8(b, p + P_HOP_LIMIT),
                slByte >>> 4,
                (slByte & 0x8) != 0,
                Be.u8(b, p + P_ACK_TIMEOUT_BYTE) >>> 3);
    }

    static void encode(CmReq m, byte[] b, int d) {
        Be.put32(b, d + LOCAL_COMM_ID, m.localCommId());
        Be.put24(b, d + VENDOR_ID, m.vendorId());
        Be.put64(b, d + SERVICE_ID, m.serviceId());
        Be.put64(b, d + LOCAL_CA_GUID, m.localCaGuid());
        Be.put32(b, d + LOCAL_Q_KEY, m.localQkey());
        Be.put24(b, d + LOCAL_QPN, m.localQpn());
        Be.put8(b, d + RESPONDER_RESOURCES, m.responderResources());
        Be.put24(b, d + LOCAL_EECN, m.localEecn());
        Be.put8(b, d + INITIATOR_DEPTH, m.initiatorDepth());
        Be.put24(b, d + REMOTE_EECN, m.remoteEecn());
        Be.put8(b, d + BYTE_43,
                (m.remoteCmResponseTimeout() << 3) | (m.transportServiceType() << 1) | bit(m.endToEndFlowControl()));
        Be.put24(b, d + STARTING_PSN, m.startingPsn());
        Be.put8(b, d + BYTE_47, (m.localCmResponseTimeout() << 3) | m.retryCount());
        Be.put16(b, d + PARTITION_KEY, m.pkey());
        Be.put8(b, d + BYTE_50, (m.pathMtu() << 4) | (bit(m.rdcExists()) << 3) | m.rnrRetryCount());
        Be.put8(b, d + BYTE_51, (m.maxCmRetries() << 4) | (bit(m.srq()) << 3) | m.extendedTransportType());
        encodePath(m.primaryPath(), b, d + PRIMARY_PATH);
        encodePath(m.alternatePath(), b, d + ALTERNATE_PATH);
        if (m.sapSupported()) {
            b[d + SAP_SUPPORTED_BYTE] |= 0x4;
        }
        m.privateData().copyTo(b, d + PRIVATE_DATA);
    }

    static void encodePath(CmPath p, byte[] b, int o) {
        Be.put16(b, o + P_LOCAL_LID, p.localLid());
        Be.put16(b, o + P_REMOTE_LID, p.remoteLid());
        p.localGid().write(b, o + P_LOCAL_GID);
        p.remoteGid().write(b, o + P_REMOTE_GID);
        Be.put32(b, o + P_FLOW_LABEL, (p.flowLabel() << 12) | p.packetRate());
        Be.put8(b, o + P_TRAFFIC_CLASS, p.trafficClass());
        Be.put8(b, o + P_HOP_LIMIT, p.hopLimit());
        Be.put8(b, o + P_SL_BYTE, (p.sl() << 4) | (bit(p.subnetLocal()) << 3));
        Be.put8(b, o + P_ACK_TIMEOUT_BYTE, p.localAckTimeout() << 3);
    }

    static int bit(boolean v) {
        return v ? 1 : 0;
    }
}
