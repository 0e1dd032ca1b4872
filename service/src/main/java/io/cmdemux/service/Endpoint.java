package io.cmdemux.service;

import io.cmdemux.netdev.InetAddresses;
import java.net.InetAddress;

/** IP:PORT from the command line; IPv6 in brackets, "[fe80::1]:7471". */
record Endpoint(InetAddress ip, int port) {
    static Endpoint parse(String option, String s) {
        String t = s.trim();
        String host;
        String port;
        if (t.startsWith("[")) {
            int e = t.indexOf("]:");
            if (e < 0) {
                throw new IllegalArgumentException(option + " " + s + ": expected [IPv6]:PORT");
            }
            host = t.substring(1, e);
            port = t.substring(e + 2);
        } else {
            int c = t.lastIndexOf(':');
            if (c < 0 || t.indexOf(':') != c) {
                throw new IllegalArgumentException(option + " " + s + ": expected IP:PORT (IPv6 in brackets)");
            }
            host = t.substring(0, c);
            port = t.substring(c + 1);
        }
        int p;
        try {
            p = Integer.parseInt(port);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " " + s + ": port '" + port + "' is not a number");
        }
        if (p < 0 || p > 65535) {
            throw new IllegalArgumentException(option + " " + s + ": port out of range");
        }
        return new Endpoint(InetAddresses.parse(host), p);
    }
}
