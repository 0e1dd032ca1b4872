package io.cmdemux.dataplane.source;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * Makes soft RDMA ports steal RoCE frames the way a NIC's RDMA engine does: an nftables netdev
 * ingress rule drops UDP 4791 on each port netdev, after our AF_PACKET tap has already seen the
 * frame (taps run before the ingress hook in __netif_receive_skb_core), so the pods' own UDP
 * stacks never see it. All rules live in one table that is replaced atomically: installing is
 * idempotent and also sweeps away what a crashed daemon left behind.
 */
public final class NftIngressGuard implements AutoCloseable {
    public static final String TABLE = "cmdemux";
    private static final Pattern IFNAME = Pattern.compile("[A-Za-z0-9_.:@-]{1,15}");

    private final List<String> netdevs;
    private boolean installed;

    public NftIngressGuard(List<String> netdevs) {
        for (String n : netdevs) {
            if (!IFNAME.matcher(n).matches()) {
                throw new IllegalArgumentException("'" + n + "' is not an interface name");
            }
        }
        this.netdevs = List.copyOf(netdevs);
    }

    /** The ruleset, exactly as `nft -f -` gets it. */
    public String ruleset() {
        StringBuilder sb = new StringBuilder();
        // "add" then "delete" makes the delete succeed whether or not a previous run left the table behind.
        sb.append("add table netdev ").append(TABLE).append('\n');
        sb.append("delete table netdev ").append(TABLE).append('\n');
        sb.append("table netdev ").append(TABLE).append(" {\n");
        int i = 0;
        for (String n : netdevs) {
            sb.append("  chain port").append(i++).append(" {\n")
                    .append("    type filter hook ingress device \"").append(n)
                    .append("\" priority -500; policy accept;\n")
                    .append("    udp dport 4791 counter drop comment \"cmdemux soft RDMA port\"\n")
                    .append("    ip6 nexthdr udp udp dport 4791 counter drop\n")
                    .append("  }\n");
        }
        sb.append("}\n");
        return sb.toString();
    }

    public void install() throws IOException {
        nft(ruleset(), "-f", "-");
        installed = true;
    }

    /** Removes the table, ours or a crashed predecessor's; no table is fine. */
    public static void remove() throws IOException {
        nft("add table netdev " + TABLE + "\ndelete table netdev " + TABLE + "\n", "-f", "-");
    }

    /** The rule counters, for status: packets dropped per netdev chain, as `nft list table` prints them. */
    public static String list() throws IOException {
        return nft(null, "list", "table", "netdev", TABLE);
    }

    private static String nft(String stdin, String... args) throws IOException {
        List<String> cmd = new java.util.ArrayList<>();
        cmd.add("nft");
        cmd.addAll(List.of(args));
        Process p;
        try {
            p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new IOException("cannot run nft (install the Debian package nftables): " + e.getMessage(), e);
        }
        if (stdin != null) {
            p.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
        }
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("nft did not finish within 10 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted waiting for nft", e);
        }
        if (p.exitValue() != 0) {
            throw new IOException("nft " + String.join(" ", args) + " failed: " + out.strip());
        }
        return out;
    }

    @Override
    public void close() throws IOException {
        if (installed) {
            remove();
            installed = false;
        }
    }
}
