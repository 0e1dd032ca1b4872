package io.cmdemux.namespaces;

import io.cmdemux.netdev.NetnsHandle;
import io.cmdemux.netdev.NlMessage;
import io.cmdemux.netdev.RtnlClient;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Reads the live kernel: for each namespace, its link, address and route dumps from a socket
 * opened inside it, and its nsid table as the host sees it. Every namespace gets an nsid in the
 * host (as `ip netns set NAME auto` would) so that its nsid table can be read and its events
 * heard with NETLINK_LISTEN_ALL_NSID.
 */
public final class LiveDumper {
    private final NetnsExecutor executor;
    private final RtnlClient host;

    /** @param host a client whose socket lives in the host namespace; used from the caller's thread only */
    public LiveDumper(NetnsExecutor executor, RtnlClient host) {
        this.executor = executor;
        this.host = host;
    }

    /** Every namespace's dumps at one moment, and how many namespaces could not be opened. */
    public record HostDumps(NetnsId host, List<NamespaceDump> dumps, int unreadable) {}

    /** Scans and dumps every namespace of the host, with threads and a socket of its own. */
    public static HostDumps dumpHost() throws IOException {
        try (NetnsExecutor exec = new NetnsExecutor(2); RtnlClient host = RtnlClient.open()) {
            NetnsDiscovery.Scan scan = new NetnsDiscovery().scan();
            return new HostDumps(scan.self(), new LiveDumper(exec, host).dumpAll(scan), scan.unreadable());
        }
    }

    /** Dumps every namespace of a scan, in parallel on the executor's threads. */
    public List<NamespaceDump> dumpAll(NetnsDiscovery.Scan scan) throws IOException {
        List<Integer> hostNsids = new ArrayList<>();
        for (DiscoveredNetns ns : scan.namespaces()) {
            hostNsids.add(ns.self() ? selfNsid(ns) : hostNsid(ns));
        }
        List<CompletableFuture<List<byte[]>>> inside = new ArrayList<>();
        for (DiscoveredNetns ns : scan.namespaces()) {
            inside.add(executor.submit(ns.path(), LiveDumper::dumpHere));
        }
        List<NamespaceDump> out = new ArrayList<>();
        for (int i = 0; i < scan.namespaces().size(); i++) {
            DiscoveredNetns ns = scan.namespaces().get(i);
            List<byte[]> messages;
            try {
                messages = new ArrayList<>(inside.get(i).join());
            } catch (CompletionException e) {
                if (e.getCause() instanceof IOException io && vanished(io)) {
                    continue; // the namespace died between the scan and the dump
                }
                throw new IOException("dumping " + describe(ns) + ": " + e.getCause().getMessage(), e.getCause());
            }
            messages.addAll(nsidTable(hostNsids.get(i), ns.self()));
            out.add(new NamespaceDump(ns.id(), ns.names(), hostNsids.get(i), messages));
        }
        return out;
    }

    /** Dumps one namespace; used by the watcher when a namespace appears or its state must be re-read. */
    public NamespaceDump dumpOne(DiscoveredNetns ns) throws IOException {
        int hostNsid = ns.self() ? selfNsid(ns) : hostNsid(ns);
        List<byte[]> messages = new ArrayList<>(executor.call(ns.path(), LiveDumper::dumpHere));
        messages.addAll(nsidTable(hostNsid, ns.self()));
        return new NamespaceDump(ns.id(), ns.names(), hostNsid, messages);
    }

    /** The nsid records of one namespace: the host's own table, or the target's table seen from the host. */
    public List<byte[]> nsidTable(int hostNsid, boolean isHost) throws IOException {
        if (!isHost && hostNsid < 0) {
            return List.of();
        }
        return bytes(host.dumpNsids(isHost ? OptionalInt.empty() : OptionalInt.of(hostNsid)));
    }

    /**
     * The nsid the host has for itself, or -1: usually none, but nothing stops RTM_NEWNSID from
     * giving a namespace an nsid for itself, and then the nsid tables of the pods name the host by
     * it (NETNSA_CURRENT_NSID) instead of by -1. Only read, never assigned.
     */
    private int selfNsid(DiscoveredNetns ns) throws IOException {
        try (NetnsHandle h = NetnsHandle.open(ns.path())) {
            return host.nsidOf(h);
        }
    }

    private int hostNsid(DiscoveredNetns ns) throws IOException {
        try (NetnsHandle h = NetnsHandle.open(ns.path())) {
            return host.ensureNsid(h);
        } catch (IOException e) {
            if (vanished(e)) {
                return -1;
            }
            throw e;
        }
    }

    private static List<byte[]> dumpHere() throws IOException {
        try (RtnlClient c = RtnlClient.open()) {
            List<byte[]> out = new ArrayList<>(bytes(c.dumpLinks()));
            out.addAll(bytes(c.dumpAddresses()));
            out.addAll(bytes(c.dumpRoutes()));
            return out;
        }
    }

    private static List<byte[]> bytes(List<NlMessage> msgs) {
        List<byte[]> out = new ArrayList<>(msgs.size());
        for (NlMessage m : msgs) {
            out.add(m.toBytes());
        }
        return out;
    }

    private static boolean vanished(IOException e) {
        String m = String.valueOf(e.getMessage());
        return m.contains("ENOENT") || m.contains("ESRCH") || m.contains("EINVAL");
    }

    private static String describe(DiscoveredNetns ns) {
        return (ns.names().isEmpty()
                        ? "netns " + ns.id().inode()
                        : "netns " + ns.names().get(0)) + " (" + ns.path() + ")";
    }
}
