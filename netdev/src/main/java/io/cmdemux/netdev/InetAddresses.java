package io.cmdemux.netdev;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.regex.Pattern;

/** Address text in the compressed RFC 5952 form iproute2 prints, and parsing without DNS. */
public final class InetAddresses {
    // Compiled once: String.matches compiles its pattern on every call, and a caller in a loop (a bench's sender)
    // spent most of its allocation on that.
    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
    private static final Pattern IPV6_CHARS = Pattern.compile("[0-9a-fA-F:.]+");
    private static final Pattern DOT = Pattern.compile("\\.");

    private InetAddresses() {}

    public static String toText(InetAddress a) {
        if (a instanceof Inet4Address) {
            return a.getHostAddress();
        }
        return compress(a.getAddress());
    }

    /** RFC 5952: lower case, the longest run of two or more zero groups as "::", no scope suffix. */
    static String compress(byte[] b) {
        int[] g = new int[8];
        for (int i = 0; i < 8; i++) {
            g[i] = ((b[2 * i] & 0xff) << 8) | (b[2 * i + 1] & 0xff);
        }
        int bestStart = -1;
        int bestLen = 0;
        for (int i = 0; i < 8; ) {
            if (g[i] != 0) {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && g[j] == 0) {
                j++;
            }
            if (j - i > bestLen) {
                bestStart = i;
                bestLen = j - i;
            }
            i = j;
        }
        if (bestLen < 2) {
            bestStart = -1;
        }
        // IPv4-mapped addresses read as ::ffff:a.b.c.d, as inet_ntop writes them.
        if (bestStart == 0 && bestLen == 5 && g[5] == 0xffff) {
            return "::ffff:" + (b[12] & 0xff) + "." + (b[13] & 0xff) + "." + (b[14] & 0xff) + "." + (b[15] & 0xff);
        }
        StringBuilder sb = new StringBuilder(39);
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                sb.append("::");
                i += bestLen - 1;
                continue;
            }
            if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') {
                sb.append(':');
            }
            sb.append(Integer.toHexString(g[i]));
        }
        return sb.toString();
    }

    /**
     * IP:PORT, IPv6 in brackets ("[fe80::1]:7471"), without DNS; {@code what} names the text in the error
     * ("--dst 10.0.0.1: expected IP:PORT").
     */
    public static InetSocketAddress parseEndpoint(String what, String text) {
        String t = text.trim();
        String host;
        String port;
        if (t.startsWith("[")) {
            int e = t.indexOf("]:");
            if (e < 0) {
                throw new IllegalArgumentException(what + " " + text + ": expected [IPv6]:PORT");
            }
            host = t.substring(1, e);
            port = t.substring(e + 2);
        } else {
            int c = t.lastIndexOf(':');
            if (c < 0 || t.indexOf(':') != c) {
                throw new IllegalArgumentException(what + " " + text + ": expected IP:PORT (IPv6 in brackets)");
            }
            host = t.substring(0, c);
            port = t.substring(c + 1);
        }
        int p;
        try {
            p = Integer.parseInt(port);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + " " + text + ": port '" + port + "' is not a number");
        }
        if (p < 0 || p > 65535) {
            throw new IllegalArgumentException(what + " " + text + ": port out of range");
        }
        return new InetSocketAddress(parse(host), p);
    }

    /** Parses a numeric IPv4 or IPv6 literal; never consults DNS. */
    public static InetAddress parse(String text) {
        String t = text.trim();
        int pct = t.indexOf('%');
        if (pct >= 0) {
            t = t.substring(0, pct);
        }
        if (t.startsWith("[") && t.endsWith("]")) {
            t = t.substring(1, t.length() - 1);
        }
        boolean v4 = IPV4.matcher(t).matches();
        boolean v6 = t.indexOf(':') >= 0 && IPV6_CHARS.matcher(t).matches();
        if (!v4 && !v6) {
            throw new IllegalArgumentException("not an IP address: " + text);
        }
        if (v4) {
            for (String part : DOT.split(t)) {
                if (Integer.parseInt(part) > 255) {
                    throw new IllegalArgumentException("not an IP address: " + text);
                }
            }
        }
        try {
            InetAddress a = InetAddress.getByName(t);
            if (a instanceof Inet6Address && v4) {
                throw new IllegalArgumentException("not an IP address: " + text);
            }
            if (a instanceof Inet4Address && !v4) {
                // "::ffff:a.b.c.d" is an IPv6 literal; getByName would hand back the IPv4 address,
                // unlike the decoder (Attributes.address) and the kernel.
                byte[] mapped = new byte[16];
                mapped[10] = (byte) 0xff;
                mapped[11] = (byte) 0xff;
                System.arraycopy(a.getAddress(), 0, mapped, 12, 4);
                return Inet6Address.getByAddress(null, mapped, -1);
            }
            return a;
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("not an IP address: " + text, e);
        }
    }
}
