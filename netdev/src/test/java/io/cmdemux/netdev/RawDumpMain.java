package io.cmdemux.netdev;

import java.util.HexFormat;
import java.util.List;

/**
 * Run in a network namespace by the root tests through {@link Iproute2#rawDump} (ip netns exec NS
 * java -cp ... io.cmdemux.netdev.RawDumpMain link addr route): opens an rtnetlink socket there,
 * makes the dumps named by its arguments (routes of every table) and prints each kernel message
 * as "link|addr|route TAB hex".
 */
public final class RawDumpMain {
    private RawDumpMain() {}

    public static void main(String[] args) throws Exception {
        HexFormat hex = HexFormat.of();
        StringBuilder out = new StringBuilder();
        try (RtnlClient c = RtnlClient.open()) {
            for (String what : args) {
                List<NlMessage> ms;
                switch (what) {
                    case "link": ms = c.dumpLinks(); break;
                    case "addr": ms = c.dumpAddresses(); break;
                    case "route": ms = c.dumpRoutes(); break;
                    default: throw new IllegalArgumentException("dump link, addr or route, not " + what);
                }
                for (NlMessage m : ms) {
                    out.append(what).append('\t').append(hex.formatHex(m.toBytes())).append('\n');
                }
            }
        }
        System.out.print(out);
        System.out.flush();
    }
}
