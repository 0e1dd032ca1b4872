package io.cmdemux.cli;

import io.cmdemux.render.GidView;
import io.cmdemux.render.TopologyView;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cmdemux.gid.GidIndexQuery;
import io.cmdemux.gid.GidType;
import io.cmdemux.namespaces.NetnsState;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.netdev.InetAddresses;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import io.cmdemux.pods.Attachment;
import io.cmdemux.pods.GidAssignment;
import io.cmdemux.pods.PodDirectory;
import io.cmdemux.pods.PodRegistration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "gid-index", mixinStandardHelpOptions = true,
        description = {"The GID index a pod must use for one of its IPs: the value NCCL_IB_GID_INDEX needs."
                + " The pod is named by",
                "its namespace file, a process in it, or (for pods cmdemux-cni registered) its Kubernetes name.",
                "Exit 1, with the reason, when there is none."})
final class GidIndexCommand implements Callable<Integer> {
    @Mixin
    Terminal terminal = new Terminal();

    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    static final class Which {
        @Option(names = "--netns", paramLabel = "PATH", required = true,
                description = "the pod's namespace: a path such as /run/netns/pod1 (or, with --snapshot,"
                        + " a name or inode)")
        String netns;

        @Option(names = "--pid", paramLabel = "PID", required = true,
                description = "a process in the pod (its /proc/PID/ns/net)")
        Integer pid;

        @Option(names = "--pod", paramLabel = "NAMESPACE/NAME", required = true,
                description = "a Kubernetes pod that cmdemux-cni registered (a bare NAME matches it in any namespace)")
        String pod;
    }

    @ArgGroup(exclusive = true, multiplicity = "1")
    Which which;

    @Option(names = "--ip", paramLabel = "ADDR",
            description = "the pod's IP address (with --pod: its registered IP when it has only one)")
    String ip;

    @Option(names = "--type", paramLabel = "v1|v2", defaultValue = "v2",
            description = "GID type (default: ${DEFAULT-VALUE})")
    String type;

    @Option(names = "--json", description = "machine-readable output")
    boolean json;

    @Mixin
    RdmaOptions rdma = new RdmaOptions();

    @Mixin
    PodOptions pods = new PodOptions();

    @Override
    public Integer call() throws Exception {
        PodDirectory registered = pods.load(rdma.snapshot);
        PodRegistration reg = which.pod == null ? null : registration(registered);
        if (ip == null && reg == null) {
            throw new IllegalArgumentException("--ip is required with --netns and --pid");
        }
        InetAddress addr = ip != null ? InetAddresses.parse(ip) : onlyIp(reg);
        GidType t = GidType.parse(type, true);
        RdmaSource.Loaded l = RdmaSource.load(rdma);
        NetnsState ns = reg != null ? byInode(l.topology(), reg.netnsInode(), reg.netnsPath())
                : namespace(l.topology());
        GidIndexQuery.Answer a = GidIndexQuery.find(l.topology(), l.rdma(), ns, addr, t);
        if (json) {
            ObjectNode o = json(l.topology(), a);
            ArrayNode names = o.putArray("pods");
            registered.podNames(ns.id().inode()).forEach(names::add);
            terminal.out().println(TopologyView.JSON.writeValueAsString(o));
        } else if (a.index().isPresent()) {
            terminal.out().println(a.index().getAsInt());
        } else if (!a.matches().isEmpty()) {
            for (GidIndexQuery.Match m : a.matches()) {
                terminal.out().println(m.device() + " " + m.port() + " " + m.entry().index());
            }
        }
        for (String w : a.warnings()) {
            terminal.err().println("cmdemux: warning: " + w);
        }
        if (a.matches().isEmpty()) {
            terminal.err().println("cmdemux: no GID index: " + a.reason());
            return ExitCode.NO;
        }
        return ExitCode.OK;
    }

    private PodRegistration registration(PodDirectory registered) {
        List<PodRegistration> found = registered.byPod(which.pod);
        if (found.isEmpty()) {
            throw new EnvironmentException("no pod " + which.pod + " is registered in " + pods.podsDir
                    + " (cmdemux-cni registers a pod when its ADD succeeds; is it in the pod's conflist?)");
        }
        List<PodRegistration> withIp = ip == null ? found
                : found.stream().filter(r -> ips(r).contains(InetAddresses.parse(ip))).toList();
        if (withIp.size() != 1) {
            List<String> all = new ArrayList<>();
            found.forEach(r -> ips(r).forEach(a -> all.add(r.key().ifname() + " " + InetAddresses.toText(a))));
            throw new IllegalArgumentException("pod " + which.pod + " has "
                    + (withIp.isEmpty() ? "no such IP" : "several registered IPs")
                    + "; choose one with --ip (" + String.join(", ", all) + ")");
        }
        return withIp.get(0);
    }

    private static List<InetAddress> ips(PodRegistration r) {
        List<InetAddress> out = new ArrayList<>();
        for (Attachment a : r.attachments()) {
            for (GidAssignment g : a.gids()) {
                out.add(g.ip());
            }
        }
        return out;
    }

    private InetAddress onlyIp(PodRegistration r) {
        List<InetAddress> all = ips(r);
        if (all.size() != 1) {
            throw new IllegalArgumentException("pod " + which.pod + " has " + all.size()
                    + " registered IPs; choose one with --ip");
        }
        return all.get(0);
    }

    private static NetnsState byInode(TopologySnapshot snap, long inode, String path) {
        for (NetnsState s : snap.namespaces()) {
            if (s.id().inode() == inode) {
                return s;
            }
        }
        throw new EnvironmentException("the pod's namespace " + path + " (inode " + inode
                + ") is not on this host any more");
    }

    private NetnsState namespace(TopologySnapshot snap) {
        String where = which.pid != null ? "/proc/" + which.pid + "/ns/net" : which.netns;
        Path p = InDaemon.path(where);
        if (Files.exists(p)) {
            long inode;
            try {
                inode = ((Number) Files.getAttribute(p, "unix:ino")).longValue();
            } catch (IOException | UnsupportedOperationException e) {
                throw new EnvironmentException("cannot stat " + where + ": " + e.getMessage(), e);
            }
            for (NetnsState s : snap.namespaces()) {
                if (s.id().inode() == inode) {
                    return s;
                }
            }
            throw new EnvironmentException(where + " (netns inode " + inode
                    + ") is not among the namespaces cmdemux found (/run/netns and every process's /proc/PID/ns/net)");
        }
        if (which.pid != null) {
            throw new EnvironmentException("no process " + which.pid);
        }
        Optional<NetnsState> s = snap.findNamespace(where);
        return s.orElseThrow(() -> new EnvironmentException("no namespace " + where
                + " (neither a file nor a namespace name or inode)"));
    }

    private static ObjectNode json(TopologySnapshot snap, GidIndexQuery.Answer a) {
        ObjectNode o = F.objectNode();
        ObjectNode ns = o.putObject("netns");
        ns.put("inode", a.netns().id().inode());
        ArrayNode names = ns.putArray("names");
        a.netns().names().forEach(names::add);
        o.put("ip", InetAddresses.toText(a.ip()));
        o.put("type", a.type().text());
        if (a.index().isPresent()) {
            o.put("index", a.index().getAsInt());
        } else {
            o.putNull("index");
        }
        ArrayNode ms = o.putArray("matches");
        for (GidIndexQuery.Match m : a.matches()) {
            ObjectNode mo = ms.addObject();
            mo.put("device", m.device());
            mo.put("port", m.port());
            mo.put("index", m.entry().index());
            mo.put("gid", m.entry().gid().toString());
            mo.set("ndev", GidView.ndevJson(snap, m.entry()));
        }
        if (a.reason() == null) {
            o.putNull("reason");
        } else {
            o.put("reason", a.reason());
        }
        ArrayNode ws = o.putArray("warnings");
        a.warnings().forEach(ws::add);
        return o;
    }
}
