package io.cmdemux.pathrecord.policy;

/**
 * IBTA static rate enum values (enum ib_rate, include/rdma/ib_verbs.h) and their bandwidth, as
 * ib_rate_to_mbps maps them. The enum is not ordered by speed (5 = 5 Gb/s comes after 4 = 30 Gb/s),
 * so a rate limit must compare bandwidths, never enum values.
 */
public final class IbRate {
    private IbRate() {}

    /** Mb/s of a rate enum value; 0 for "port current" (0) and unknown values. */
    public static int mbps(int rate) {
        switch (rate) {
            case 2: return 2500;
            case 3: return 10000;
            case 4: return 30000;
            case 5: return 5000;
            case 6: return 20000;
            case 7: return 40000;
            case 8: return 60000;
            case 9: return 80000;
            case 10: return 120000;
            case 11: return 14000;
            case 12: return 56000;
            case 13: return 112000;
            case 14: return 168000;
            case 15: return 25000;
            case 16: return 100000;
            case 17: return 200000;
            case 18: return 300000;
            case 19: return 28000;
            case 20: return 50000;
            case 21: return 400000;
            case 22: return 600000;
            default: return 0;
        }
    }

    /** "10 Gb/s" for 3, for human output. */
    public static String text(int rate) {
        int m = mbps(rate);
        if (m == 0) {
            return "rate " + rate;
        }
        return (m % 1000 == 0 ? Integer.toString(m / 1000) : String.format("%.1f", m / 1000.0)) + " Gb/s";
    }

    /** IBTA MTU enum (1 = 256 ... 5 = 4096) in bytes, 0 when unknown. */
    public static int mtuBytes(int mtu) {
        return mtu >= 1 && mtu <= 5 ? 128 << mtu : 0;
    }
}
