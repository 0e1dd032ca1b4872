package io.cmdemux.ingress.wire;

import io.cmdemux.gid.Gid;

/**
 * The IP header fields RoCEv2 cares about. Addresses are GIDs: IPv4 ones in ::ffff:a.b.c.d form, which
 * is also how RoCEv2 GID tables hold them. {@code trafficClass} is the IPv4 TOS byte or the IPv6
 * traffic class; {@code hopLimit} is the TTL for IPv4; {@code flowLabel} is 0 for IPv4.
 */
public record L3Header(int ipVersion, Gid src, Gid dst, int trafficClass, int hopLimit, int flowLabel) {
    public L3Header {
        if (ipVersion != 4 && ipVersion != 6) {
            throw new IllegalArgumentException("IP version " + ipVersion);
        }
        if (ipVersion == 4 && (!src.isIpv4Mapped() || !dst.isIpv4Mapped())) {
            throw new IllegalArgumentException("IPv4 addresses must be IPv4-mapped GIDs");
        }
        Be.check("trafficClass", trafficClass, 8);
        Be.check("hopLimit", hopLimit, 8);
        Be.check("flowLabel", flowLabel, 20);
        if (ipVersion == 4 && flowLabel != 0) {
            throw new IllegalArgumentException("IPv4 has no flow label");
        }
    }

    /** A header with the defaults rxe uses: traffic class 0, hop limit 64 (IPv4 TTL or IPv6 hop limit). */
    public static L3Header of(Gid src, Gid dst) {
        int version = src.isIpv4Mapped() ? 4 : 6;
        return new L3Header(version, src, dst, 0, 64, 0);
    }
}
