package io.cmdemux.ingress.wire;

import io.cmdemux.gid.Gid;

/**
 * A REQ's primary or alternate path (IBTA Table 106, bytes 52–95 and 96–139 of the CM data).
 * {@code flowLabel} is 20 bits, {@code packetRate} 6, {@code sl} 4, {@code localAckTimeout} 5.
 */
public record CmPath(
        int localLid,
        int remoteLid,
        Gid localGid,
        Gid remoteGid,
        int flowLabel,
        int packetRate,
        int trafficClass,
        int hopLimit,
        int sl,
        boolean subnetLocal,
        int localAckTimeout) {

    /** What a REQ carries when it has no alternate path: all zeros. */
    public static final CmPath NONE = new CmPath(0, 0, Gid.ZERO, Gid.ZERO, 0, 0, 0, 0, 0, false, 0);

    public CmPath {
        Be.check("localLid", localLid, 16);
        Be.check("remoteLid", remoteLid, 16);
        if (localGid == null || remoteGid == null) {
            throw new IllegalArgumentException("path GIDs are required (use Gid.ZERO)");
        }
        Be.check("flowLabel", flowLabel, 20);
        Be.check("packetRate", packetRate, 6);
        Be.check("trafficClass", trafficClass, 8);
        Be.check("hopLimit", hopLimit, 8);
        Be.check("sl", sl, 4);
        Be.check("localAckTimeout", localAckTimeout, 5);
    }
}
