package io.cmdemux.netdev;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Our address and route decoders on the real kernel's bytes, against iproute2. Needs root and
 * the iproute2 package, and fails without them.
 *
 * <p>The test makes its own namespace (cmdx-nt-RANDOM) with veths, IPv4 and IPv6 addresses
 * (secondary with a label, point-to-point peers, a v4-mapped IPv6 address) and routes (IPv4 and
 * IPv6 multipath, a table above 255, blackhole and unreachable). The raw dump is taken inside
 * the namespace by a child JVM started with {@code ip netns exec} ({@link Iproute2#rawDump}),
 * because entering a namespace needs setns, which the namespaces module owns; the comparison is
 * address by address and route by route against {@code ip -j addr show} and
 * {@code ip -d -j route show table all}. Links are compared by the namespaces module's tests.
 */
class AddressRouteDumpVsIproute2AsRootTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static String ns;
    private static List<Address> ourAddresses = new ArrayList<>();
    private static List<Route> ourRoutes = new ArrayList<>();
    private static Map<String, Integer> ifindexByName = new HashMap<>();

    @BeforeAll
    static void buildNamespaceAndDumpIt() throws Exception {
        Iproute2.requireRootAndIproute2();
        ns = "cmdx-nt-" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffffL);
        Iproute2.run("ip", "netns", "add", ns);
        // No duplicate address detection: addresses must not change flags between our dump and ip's.
        Iproute2.run("ip", "netns", "exec", ns, "sysctl", "-q", "-w", "net.ipv6.conf.default.accept_dad=0",
                "net.ipv6.conf.all.accept_dad=0");
        ipn("link", "set", "lo", "up");
        ipn("link", "add", "va", "type", "veth", "peer", "name", "vb");
        ipn("link", "add", "vc", "type", "veth", "peer", "name", "vd");
        for (String d : List.of("va", "vb", "vc", "vd")) {
            ipn("link", "set", d, "up");
        }
        ipn("addr", "add", "10.61.0.1/24", "dev", "va");
        ipn("addr", "add", "10.61.0.7/24", "dev", "va", "label", "va:sec");
        ipn("addr", "add", "10.62.0.1", "peer", "10.62.0.2/32", "dev", "vc");
        ipn("addr", "add", "fd00:61::1/64", "dev", "va", "nodad");
        ipn("addr", "add", "::ffff:10.61.9.9/128", "dev", "vc", "nodad", "noprefixroute");
        ipn("addr", "add", "fd00:62::1", "peer", "fd00:62::2/128", "dev", "vc", "nodad");
        ipn("route", "add", "10.99.0.0/16", "nexthop", "via", "10.61.0.2", "dev", "va", "weight", "1",
                "nexthop", "via", "10.62.0.2", "dev", "vc", "weight", "3");
        ipn("route", "add", "10.98.0.0/16", "via", "10.61.0.2", "table", "1000", "metric", "50");
        ipn("route", "add", "unreachable", "10.97.0.0/16");
        ipn("route", "add", "blackhole", "10.96.0.0/16", "table", "7", "tos", "0x10");
        ipn("route", "add", "default", "via", "10.61.0.2", "dev", "va", "proto", "static");
        ipn("-6", "route", "add", "fd00:99::/48", "nexthop", "via", "fd00:61::2", "dev", "va", "weight", "2",
                "nexthop", "via", "fd00:62::2", "dev", "vc");
        ipn("-6", "route", "add", "default", "via", "fd00:61::2", "dev", "va", "metric", "1024");
        waitUntilSettled(List.of("va", "vb", "vc", "vd"));

        for (Iproute2.Raw raw : Iproute2.rawDump(ns, "addr", "route")) {
            NlMessage m = NlMessage.of(raw.bytes());
            if (raw.what().equals("addr")) {
                Address a = Rtnl.decodeAddress(m);
                assertThat(a).as("RTM_NEWADDR of family v4/v6 only were asked for").isNotNull();
                ourAddresses.add(a);
            } else {
                Route r = Rtnl.decodeRoute(m);
                assertThat(r).isNotNull();
                if ((m.raw().getInt(NlMessage.HEADER_SIZE + 8) & RTM_F_CLONED) == 0) {
                    ourRoutes.add(r); // ip hides cloned (cache) routes unless asked for them
                }
            }
        }
        for (JsonNode l : JSON.readTree(ipn("-j", "link", "show"))) {
            ifindexByName.put(l.get("ifname").asText(), l.get("ifindex").asInt());
        }
    }

    /**
     * A veth's carrier comes up through linkwatch, asynchronously and up to a second later; only
     * then does IPv6 add its link-local address and its fe80::/64 and ff00::/8 routes. Wait for
     * that, so that nothing changes between our dump and ip's.
     */
    private static void waitUntilSettled(List<String> devices) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            int ready = 0;
            for (JsonNode link : JSON.readTree(ipn("-j", "addr", "show"))) {
                boolean hasLinkLocal = false;
                for (JsonNode ai : link.get("addr_info")) {
                    hasLinkLocal |= ai.get("family").asText().equals("inet6")
                            && ai.get("scope").asText().equals("link");
                }
                if (devices.contains(link.get("ifname").asText())
                        && link.get("operstate").asText().equals("UP")
                        && hasLinkLocal) {
                    ready++;
                }
            }
            int mroutes = 0;
            for (JsonNode r : JSON.readTree(ipn("-6", "-j", "route", "show", "table", "local"))) {
                mroutes += r.get("dst").asText().equals("ff00::/8") ? 1 : 0;
            }
            if (ready == devices.size() && mroutes == devices.size()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("veths in " + ns + " not up with IPv6 link-local addresses after 20 s: "
                        + ready + " of " + devices.size());
            }
            Thread.sleep(50);
        }
    }

    /** <linux/rtnetlink.h> rtm_flags: a clone of a route in the cache. */
    private static final int RTM_F_CLONED = 0x200;

    @AfterAll
    static void deleteNamespace() throws Exception {
        if (ns != null) {
            Iproute2.run("ip", "netns", "del", ns);
        }
    }

    @Test
    void everyAddressMatchesIproute2IncludingPeersLabelsFlagsAndV4MappedIpv6() throws Exception {
        TreeSet<String> theirs = new TreeSet<>();
        for (JsonNode link : JSON.readTree(ipn("-j", "addr", "show"))) {
            for (JsonNode ai : link.get("addr_info")) {
                theirs.add(iproute2Address(link.get("ifindex").asInt(), ai));
            }
        }
        TreeSet<String> ours = new TreeSet<>();
        for (Address a : ourAddresses) {
            ours.add(ourAddress(a));
        }
        assertThat(ours).as("our decoded addresses vs ip -j addr show").containsExactlyElementsOf(theirs);
        // The set above must hold what this test built, or the comparison proves little.
        assertThat(ours).anyMatch(s -> s.contains("|::ffff:10.61.9.9|128|"))
                .anyMatch(s -> s.contains("|10.62.0.1|32|") && s.contains("|peer=10.62.0.2|"))
                .anyMatch(s -> s.contains("label=va:sec") && s.contains("secondary"));
    }

    @Test
    void everyRouteOfEveryTableMatchesIproute2IncludingMultipathWeights() throws Exception {
        TreeSet<String> theirs = new TreeSet<>();
        for (String family : List.of("-4", "-6")) {
            for (JsonNode r : JSON.readTree(ipn(family, "-d", "-j", "route", "show", "table", "all"))) {
                theirs.add(iproute2Route(family.equals("-4") ? Rtnl.AF_INET : Rtnl.AF_INET6, r));
            }
        }
        TreeSet<String> ours = new TreeSet<>();
        for (Route r : ourRoutes) {
            ours.add(ourRoute(r));
        }
        assertThat(ours).as("our decoded routes vs ip -d -j route show table all").containsExactlyElementsOf(theirs);
        assertThat(ours)
                .anyMatch(s ->
                        s.contains("10.99.0.0/16") && s.contains("hops=[" + ifindexByName.get("va") + "/10.61.0.2/1,"))
                .anyMatch(s -> s.startsWith("2|1000|"))
                .anyMatch(s -> s.contains("fd00:99::/48") && s.contains("/fd00:61::2/2,"));
    }

    // ---- canonical forms: one line per address / route, built from each side ----

    /** iproute2 ip/ipaddress.c ifa_flag_data: the flags it names, and whether only for IPv6. */
    private static final Object[][] IFA_FLAGS = {
        {0x01, "secondary", false}, {0x01, "temporary", true}, {0x02, "nodad", true}, {0x04, "optimistic", true},
        {0x08, "dadfailed", true}, {0x10, "home", true}, {0x20, "deprecated", true}, {0x40, "tentative", true},
        {0x100, "mngtmpaddr", true}, {0x200, "noprefixroute", false}, {0x400, "autojoin", false},
        {0x800, "stable-privacy", true},
    };

    private static String ourAddress(Address a) {
        boolean v6 = a.family() == Rtnl.AF_INET6;
        List<String> flags = new ArrayList<>();
        for (Object[] f : IFA_FLAGS) {
            boolean v6only = (Boolean) f[2];
            boolean applies = v6 ? !(((Integer) f[0]) == 0x01 && !v6only) : !v6only;
            if (applies && (a.flags() & (Integer) f[0]) != 0) {
                flags.add((String) f[1]);
            }
        }
        // ip prints "dynamic" for an address without IFA_F_PERMANENT (IPv6 only).
        if (v6 && (a.flags() & Address.IFA_F_PERMANENT) == 0) {
            flags.add("dynamic");
        }
        return canonicalAddress(a.ifindex(), v6 ? "inet6" : "inet", InetAddresses.toText(a.address()), a.prefixLen(),
                a.scope(), a.label(), a.peer() == null ? null : InetAddresses.toText(a.peer()), flags);
    }

    private static String iproute2Address(int ifindex, JsonNode ai) {
        List<String> flags = new ArrayList<>();
        for (Object[] f : IFA_FLAGS) {
            if (ai.path((String) f[1]).asBoolean(false)) {
                flags.add((String) f[1]);
            }
        }
        if (ai.path("dynamic").asBoolean(false)) {
            flags.add("dynamic");
        }
        return canonicalAddress(ifindex, ai.get("family").asText(), ai.get("local").asText(),
                ai.get("prefixlen").asInt(), scopeNumber(ai.get("scope").asText()),
                ai.has("label") ? ai.get("label").asText() : null,
                ai.has("address") ? ai.get("address").asText() : null, flags);
    }

    private static String canonicalAddress(
            int ifindex,
            String family,
            String local,
            int prefix,
            int scope,
            String label,
            String peer,
            List<String> flags) {
        List<String> sorted = new ArrayList<>(flags);
        sorted.sort(null);
        return ifindex + "|" + family + "|" + local + "|" + prefix + "|scope=" + scope + "|label=" + label + "|peer="
                + peer + "|" + sorted;
    }

    private static String ourRoute(Route r) {
        String dst = r.dstLen() == 0 && r.dst() == null ? "default" : InetAddresses.toText(r.dst()) + "/" + r.dstLen();
        List<String> hops = new ArrayList<>();
        for (Route.Nexthop h : r.nexthops()) {
            hops.add(h.ifindex() + "/" + (h.gateway() == null ? null : InetAddresses.toText(h.gateway())) + "/"
                    + h.weight());
        }
        return canonicalRoute(r.family(), r.table(), r.type(), dst, r.tos(), r.protocol(), r.scope(),
                r.gateway() == null ? null : InetAddresses.toText(r.gateway()), r.oif(),
                r.prefsrc() == null ? null : InetAddresses.toText(r.prefsrc()), r.priority(), hops);
    }

    private static String iproute2Route(int family, JsonNode r) {
        String dst = r.get("dst").asText();
        if (!dst.equals("default") && !dst.contains("/")) {
            dst += family == Rtnl.AF_INET ? "/32" : "/128"; // ip leaves out a host route's length
        }
        List<String> hops = new ArrayList<>();
        for (JsonNode h : r.path("nexthops")) {
            hops.add(ifindexByName.get(h.get("dev").asText()) + "/"
                    + h.path("gateway").asText(null) + "/" + h.path("weight").asInt(1));
        }
        int oif = r.has("dev") ? ifindexByName.get(r.get("dev").asText()) : 0;
        return canonicalRoute(family, tableNumber(r.get("table").asText()), typeNumber(r.get("type").asText()), dst,
                r.has("tos") ? Integer.decode(r.get("tos").asText()) : 0, protocolNumber(r.get("protocol").asText()),
                scopeNumber(r.get("scope").asText()), r.path("gateway").asText(null), oif,
                r.path("prefsrc").asText(null), r.path("metric").asInt(0), hops);
    }

    private static String canonicalRoute(int family, int table, int type, String dst, int tos, int protocol, int scope,
            String gateway, int oif, String prefsrc, int metric, List<String> hops) {
        return family + "|" + table + "|" + type + "|" + dst + "|tos=" + tos + "|proto=" + protocol + "|scope=" + scope
                + "|via=" + gateway + "|oif=" + oif + "|src=" + prefsrc + "|metric=" + metric + "|hops=" + hops;
    }

    // iproute2's words (lib/rt_names.c, /etc/iproute2/rt_tables defaults) back to the kernel's numbers.

    private static int tableNumber(String s) {
        switch (s) {
            case "default": return 253;
            case "main": return 254;
            case "local": return 255;
            default: return Integer.parseInt(s);
        }
    }

    private static int typeNumber(String s) {
        List<String> names = List.of("none", "unicast", "local", "broadcast", "anycast", "multicast", "blackhole",
                "unreachable", "prohibit", "throw", "nat", "xresolve");
        int i = names.indexOf(s);
        return i >= 0 ? i : Integer.parseInt(s);
    }

    private static int protocolNumber(String s) {
        switch (s) {
            case "unspec": return 0;
            case "redirect": return 1;
            case "kernel": return 2;
            case "boot": return 3;
            case "static": return 4;
            case "ra": return 9;
            case "dhcp": return 16;
            default: return Integer.parseInt(s);
        }
    }

    private static int scopeNumber(String s) {
        switch (s) {
            case "global": return 0;
            case "site": return 200;
            case "link": return 253;
            case "host": return 254;
            case "nowhere": return 255;
            default: return Integer.parseInt(s);
        }
    }

    private static String ipn(String... args) throws IOException {
        return Iproute2.ip(ns, args);
    }
}
