package io.cmdemux.ingress.wire;

import io.cmdemux.gid.Gid;

/** Messages whose every field holds its largest value, to expose bits written outside a field. */
final class CmValues {
    private CmValues() {}

    static Octets ones(int n) {
        byte[] b = new byte[n];
        java.util.Arrays.fill(b, (byte) 0xff);
        return Octets.of(b);
    }

    static final Gid ALL_ONES_GID = new Gid(-1L, -1L);
    static final CmPath ALL_ONES_PATH =
            new CmPath(0xffff, 0xffff, ALL_ONES_GID, ALL_ONES_GID, 0xfffff, 0x3f, 0xff, 0xff, 0xf, true, 0x1f);

    static CmMessage allOnes(CmAttribute a) {
        switch (a) {
            case REQ:
                return new CmReq(-1, 0xffffff, -1L, -1L, -1, 0xffffff, 0xff, 0xffffff, 0xff, 0xffffff, 0x1f, 0x3, true,
                        0xffffff, 0x1f, 0x7, 0xffff, 0xf, true, 0x7, 0xf, true, 0x7, ALL_ONES_PATH, ALL_ONES_PATH, true,
                        ones(CmReq.PRIVATE_DATA_SIZE));
            case MRA:
                return new CmMra(-1, -1, 0x3, 0x1f, ones(CmMra.PRIVATE_DATA_SIZE));
            case REJ:
                return new CmRej(-1, -1, 0x3, 0x7f, 0xffff, ones(CmRej.ARI_SIZE), ones(CmRej.PRIVATE_DATA_SIZE));
            case REP:
                return new CmRep(-1, -1, -1, 0xffffff, 0xffffff, 0xffffff, 0xffffff, 0xff, 0xff, 0x1f, 0x3, true, 0x7,
                        true, -1L, ones(CmRep.PRIVATE_DATA_SIZE));
            case RTU:
                return new CmRtu(-1, -1, ones(CmRtu.PRIVATE_DATA_SIZE));
            case DREQ:
                return new CmDreq(-1, -1, 0xffffff, ones(CmDreq.PRIVATE_DATA_SIZE));
            case DREP:
                return new CmDrep(-1, -1, ones(CmDrep.PRIVATE_DATA_SIZE));
            case SIDR_REQ:
                return new CmSidrReq(-1, 0xffff, -1L, ones(CmSidrReq.PRIVATE_DATA_SIZE));
            case SIDR_REP:
                return new CmSidrRep(-1, 0xff, 0xff, 0xffffff, 0xffffff, -1L, -1, ones(CmSidrRep.ADDITIONAL_INFO_SIZE),
                        ones(CmSidrRep.PRIVATE_DATA_SIZE));
            default:
                throw new IllegalArgumentException(a.name());
        }
    }
}
