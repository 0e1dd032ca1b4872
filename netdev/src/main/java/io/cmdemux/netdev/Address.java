package io.cmdemux.netdev;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.Objects;

/**
 * One interface address (RTM_NEWADDR).
 *
 * @param address IFA_LOCAL when present, else IFA_ADDRESS: the address that belongs to this host
 * @param peer IFA_ADDRESS when it differs from IFA_LOCAL (point-to-point), else null
 */
public record Address(
        int family,
        int ifindex,
        InetAddress address,
        int prefixLen,
        int scope,
        int flags,
        String label,
        InetAddress peer) {
    // <linux/if_addr.h>
    public static final int IFA_F_SECONDARY = 0x01;
    public static final int IFA_F_NODAD = 0x02;
    public static final int IFA_F_DADFAILED = 0x08;
    public static final int IFA_F_TENTATIVE = 0x40;
    public static final int IFA_F_PERMANENT = 0x80;
    // <linux/rtnetlink.h> rt_scope_t
    public static final int RT_SCOPE_UNIVERSE = 0;
    public static final int RT_SCOPE_LINK = 253;
    public static final int RT_SCOPE_HOST = 254;

    public Address {
        Objects.requireNonNull(address, "address");
    }

    public boolean ipv4() {
        return address instanceof Inet4Address;
    }

    /** "10.77.0.2/24" or "fe80::1/64", the way iproute2 writes local/prefixlen. */
    public String cidr() {
        return InetAddresses.toText(address) + "/" + prefixLen;
    }
}
