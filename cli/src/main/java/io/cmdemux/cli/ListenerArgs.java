package io.cmdemux.cli;

import io.cmdemux.render.TopologyView;
import io.cmdemux.ingress.wire.PortSpace;

import com.fasterxml.jackson.databind.JsonNode;
import io.cmdemux.ingress.resolve.Listener;
import io.cmdemux.ingress.resolve.QpType;
import io.cmdemux.ingress.resolve.ListenerTable;
import io.cmdemux.namespaces.NetnsState;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.netdev.InetAddresses;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Listeners given on the command line until a daemon feeds live registrations:
 * {@code --listener NS:ADDR:PORT[:ps][:afonly]} (IPv6 in brackets, "ib" as ADDR for AF_IB) and
 * {@code --listeners FILE}, a JSON array. Bind order is the order given; later means newer.
 */
final class ListenerArgs {
    private ListenerArgs() {}

    static ListenerTable table(TopologySnapshot topo, List<String> specs, Path file) {
        List<Listener> out = new ArrayList<>();
        long order = 1;
        if (file != null) {
            for (Listener l : fromFile(topo, file, order)) {
                out.add(l);
                order++;
            }
        }
        for (String s : specs) {
            out.add(parse(topo, s, order++));
        }
        return new ListenerTable(1, out);
    }

    static Listener parse(TopologySnapshot topo, String spec, long order) {
        String rest = spec;
        int c = rest.indexOf(':');
        if (c <= 0) {
            throw new IllegalArgumentException("--listener " + spec + ": expected NS:ADDR:PORT[:ps][:afonly]");
        }
        NetnsState ns = namespace(topo, rest.substring(0, c), spec);
        rest = rest.substring(c + 1);
        String addr;
        if (rest.startsWith("[")) {
            int e = rest.indexOf(']');
            if (e < 0) {
                throw new IllegalArgumentException("--listener " + spec + ": unterminated [IPv6] address");
            }
            addr = rest.substring(1, e);
            rest = rest.substring(e + 1);
            if (!rest.startsWith(":")) {
                throw new IllegalArgumentException("--listener " + spec + ": expected :PORT after the address");
            }
            rest = rest.substring(1);
        } else {
            int e = rest.indexOf(':');
            if (e < 0) {
                throw new IllegalArgumentException("--listener " + spec + ": expected NS:ADDR:PORT[:ps][:afonly]");
            }
            addr = rest.substring(0, e);
            rest = rest.substring(e + 1);
        }
        String[] f = rest.split(":");
        int port = port(f[0], spec);
        PortSpace ps = f.length > 1 && !f[1].isEmpty() ? PortSpace.parse(f[1]) : PortSpace.TCP;
        InetAddress parsed = addr.equalsIgnoreCase("ib") ? null : InetAddresses.parse(addr);
        boolean afonly = Listener.defaultAfonly(parsed);
        if (f.length > 2) {
            if (!f[2].equals("afonly")) {
                throw new IllegalArgumentException("--listener " + spec + ": unknown flag '" + f[2]
                        + "' (only afonly)");
            }
            afonly = true;
        }
        if (f.length > 3) {
            throw new IllegalArgumentException("--listener " + spec + ": too many fields");
        }
        return new Listener(ns.id(), ps, port, parsed, afonly, 0, order, null, "cli");
    }

    private static List<Listener> fromFile(TopologySnapshot topo, Path file, long firstOrder) {
        JsonNode root;
        try {
            root = TopologyView.JSON.readTree(Files.readString(file));
        } catch (IOException e) {
            throw new EnvironmentException("--listeners " + file + ": " + e.getMessage(), e);
        }
        if (root == null || !root.isArray()) {
            throw new IllegalArgumentException("--listeners " + file
                    + ": expected a JSON array of {netns, address, port, ps, afonly, boundIfindex}");
        }
        List<Listener> out = new ArrayList<>();
        long order = firstOrder;
        for (JsonNode n : root) {
            String where = "--listeners " + file + " entry " + (out.size() + 1);
            if (!n.isObject() || !n.path("netns").isTextual() || !n.path("port").canConvertToInt()) {
                throw new IllegalArgumentException(where + ": needs \"netns\" (text) and \"port\" (number)");
            }
            NetnsState ns = namespace(topo, n.get("netns").asText(), where);
            String addr = n.path("address").asText("0.0.0.0");
            InetAddress ip = addr.equalsIgnoreCase("ib") ? null : InetAddresses.parse(addr);
            PortSpace ps = PortSpace.parse(n.path("ps").asText("tcp"));
            int port = port(n.get("port").asText(), where);
            boolean afonly = n.has("afonly") ? n.get("afonly").asBoolean() : Listener.defaultAfonly(ip);
            QpType qp = n.path("qpType").isTextual() ? QpType.parse(n.get("qpType").asText()) : QpType.defaultFor(ps);
            out.add(new Listener(ns.id(), ps, port, ip, afonly, n.path("boundIfindex").asInt(0), order++,
                    n.path("device").isTextual() ? n.get("device").asText() : null, "file", qp));
        }
        return out;
    }

    private static NetnsState namespace(TopologySnapshot topo, String name, String context) {
        return topo.findNamespace(name)
                .orElseThrow(() -> new IllegalArgumentException(context + ": no namespace '" + name
                + "' (a name under /run/netns, an inode, or host)"));
    }

    private static int port(String s, String context) {
        try {
            int p = Integer.parseInt(s.trim());
            if (p < 0 || p > 65535) {
                throw new NumberFormatException();
            }
            return p;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(context + ": port '" + s + "' is not 0-65535");
        }
    }
}
