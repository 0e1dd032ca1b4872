package io.cmdemux.ingress.capture;

/** The link types a RoCEv2 capture comes in (https://www.tcpdump.org/linktypes.html). */
final class LinkTypes {
    static final int ETHERNET = 1; // LINKTYPE_ETHERNET
    static final int RAW = 101; // LINKTYPE_RAW: a bare IPv4 or IPv6 packet
    static final int LINUX_SLL = 113; // LINKTYPE_LINUX_SLL, tcpdump -i any
    static final int IPV4 = 228; // LINKTYPE_IPV4
    static final int IPV6 = 229; // LINKTYPE_IPV6
    static final int LINUX_SLL2 = 276; // LINKTYPE_LINUX_SLL2
    static final int SLL_HEADER = 16;
    static final int SLL2_HEADER = 20;

    private LinkTypes() {}
}
