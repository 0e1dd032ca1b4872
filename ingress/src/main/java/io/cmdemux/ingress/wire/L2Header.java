package io.cmdemux.ingress.wire;

import io.cmdemux.netdev.HwAddr;

/** Ethernet addresses and an optional 802.1Q tag ({@code vlan} is null when untagged). */
public record L2Header(HwAddr dst, HwAddr src, Vlan vlan) {
    public L2Header {
        if (dst == null || src == null || dst.length() != 6 || src.length() != 6) {
            throw new IllegalArgumentException("Ethernet needs two 6-byte MAC addresses");
        }
    }
}
