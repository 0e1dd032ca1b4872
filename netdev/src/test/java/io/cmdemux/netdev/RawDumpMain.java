package io.cmdemux.netdev;

import java.util.HexFormat;

/**
 * Run in a network namespace by {@link AddressRouteDumpVsIproute2AsRootTest} (ip netns exec NS
 * java -cp ... io.cmdemux.netdev.RawDumpMain): opens an rtnetlink socket there, dumps addresses
 * and routes of every table, and prints each kernel message as "addr|route TAB hex". Entering a
 * namespace from the test JVM would need setns, which belongs to the namespaces module.
 */
public final class RawDumpMain {
    private RawDumpMain() {}

    public static void main(String[] args) throws Exception {
        HexFormat hex = HexFormat.of();
        StringBuilder out = new StringBuilder();
        try (RtnlClient c = RtnlClient.open()) {
            for (NlMessage m : c.dumpAddresses()) {
                out.append("addr\t").append(hex.formatHex(m.toBytes())).append('\n');
            }
            for (NlMessage m : c.dumpRoutes()) {
                out.append("route\t").append(hex.formatHex(m.toBytes())).append('\n');
            }
        }
        System.out.print(out);
        System.out.flush();
    }
}
