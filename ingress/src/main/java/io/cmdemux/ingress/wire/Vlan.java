package io.cmdemux.ingress.wire;

/** An 802.1Q tag: priority, drop eligible, VLAN ID. */
public record Vlan(int pcp, boolean dei, int vid) {
    public Vlan {
        Be.check("pcp", pcp, 3);
        Be.check("vid", vid, 12);
    }

    public static Vlan of(int vid) {
        return new Vlan(0, false, vid);
    }

    int tci() {
        return (pcp << 13) | ((dei ? 1 : 0) << 12) | vid;
    }

    static Vlan ofTci(int tci) {
        return new Vlan(tci >>> 13, (tci & 0x1000) != 0, tci & 0xfff);
    }
}
