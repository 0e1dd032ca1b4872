package io.cmdemux.netdev;

import java.net.InetAddress;

/**
 * One neighbour table entry (RTM_NEWNEIGH).
 *
 * @param lladdr NDA_LLADDR, or null while unresolved
 * @param state NUD_* bits
 */
public record Neighbor(int family, int ifindex, InetAddress address, HwAddr lladdr, int state) {
    // <linux/neighbour.h>
    public static final int NUD_INCOMPLETE = 0x01;
    public static final int NUD_REACHABLE = 0x02;
    public static final int NUD_STALE = 0x04;
    public static final int NUD_DELAY = 0x08;
    public static final int NUD_PROBE = 0x10;
    public static final int NUD_FAILED = 0x20;
    public static final int NUD_NOARP = 0x40;
    public static final int NUD_PERMANENT = 0x80;

    /** Has a link-layer address that can be used to send (reachable, stale, delay, probe, permanent, noarp). */
    public boolean usable() {
        return lladdr != null && (state & (NUD_INCOMPLETE | NUD_FAILED)) == 0 && state != 0;
    }
}
