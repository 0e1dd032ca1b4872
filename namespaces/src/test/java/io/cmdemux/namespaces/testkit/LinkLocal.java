package io.cmdemux.namespaces.testkit;

import java.util.StringJoiner;

/** The address addrconf gives a link, written out independently of the code under test. */
public final class LinkLocal {
    private LinkLocal() {}

    /**
     * fe80:: + modified EUI-64 of {@code mac} (RFC 4291 appendix A), in RFC 5952's form: the zeros after
     * fe80 are the longest run, and leading zero groups of the interface ID join it (a MAC of 02:00:...
     * gives fe80::49ff:..., not fe80::0:49ff:..., which once failed a test on a random MAC).
     */
    public static String ofMac(String mac) {
        String[] b = mac.split(":");
        int[] g = {
            (Integer.parseInt(b[0], 16) ^ 0x02) << 8 | Integer.parseInt(b[1], 16),
            Integer.parseInt(b[2], 16) << 8 | 0xff,
            0xfe00 | Integer.parseInt(b[3], 16),
            Integer.parseInt(b[4], 16) << 8 | Integer.parseInt(b[5], 16)
        };
        int skip = 0;
        while (skip < g.length && g[skip] == 0) {
            skip++;
        }
        StringJoiner id = new StringJoiner(":", "fe80::", "");
        for (int i = skip; i < g.length; i++) {
            id.add(Integer.toHexString(g[i]));
        }
        return id.toString();
    }
}
