package io.cmdemux.cni;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.netdev.InetAddresses;
import io.cmdemux.pods.Attachment;
import io.cmdemux.pods.GidAssignment;
import io.cmdemux.pods.NetnsClaims;
import io.cmdemux.pods.PodKey;
import io.cmdemux.pods.PodRef;
import io.cmdemux.pods.PodRegistration;
import io.cmdemux.pods.PodRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * cmdemux-cni, a chained CNI plugin: one invocation (environment + stdin) in, one outcome (exit
 * code, stdout, stderr) out. The same code answers in the daemon, for the thin client, and in the
 * JVM CLI when the daemon is down; only the {@link CniBackend} differs.
 *
 * <ul>
 *   <li>ADD checks every sandbox interface of prevResult (see {@link Readiness}), registers the
 *       ready ones, and passes prevResult on unchanged;</li>
 *   <li>DEL forgets the registration; it never fails for a missing namespace, result or daemon;</li>
 *   <li>CHECK runs the ADD checks again against prevResult;</li>
 *   <li>STATUS (1.1.0) says whether ADDs can be served; GC (1.1.0) forgets attachments the runtime no longer has;</li>
 *   <li>VERSION lists the versions this plugin speaks.</li>
 * </ul>
 */
public final class CniPlugin {
    private static final Logger PHASES = LoggerFactory.getLogger(CniPlugin.class);
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private final CniBackend backend;

    CniPlugin(CniBackend backend) {
        this.backend = backend;
    }

    /** The daemon's plugin: its live state, its registry. */
    public static CniPlugin inDaemon(NetnsId host, RdmaState live, PodRegistry registry) {
        return new CniPlugin(new DaemonBackend(host, live, registry));
    }

    /** The plugin of `cmdemux cni`, which runs when the thin client cannot reach the daemon. */
    public static CniPlugin standalone() throws IOException {
        return new CniPlugin(new FallbackBackend());
    }

    public CniOutcome run(Map<String, String> env, byte[] stdin) {
        StringBuilder log = new StringBuilder();
        try {
            CniEnv e = CniEnv.parse(env);
            if (e.command() == CniOperation.VERSION) {
                return ok(version(stdin), log);
            }
            CniConfig c = CniConfig.parse(stdin, e.command() == CniOperation.DEL);
            switch (e.command()) {
                case ADD:
                    return ok(add(e, c, log), log);
                case DEL:
                    del(e, c, log);
                    return ok(new byte[0], log);
                case CHECK:
                    check(e, c, log);
                    return ok(new byte[0], log);
                case STATUS:
                    status(c);
                    return ok(new byte[0], log);
                case GC:
                    gc(c, log);
                    return ok(new byte[0], log);
                default:
                    throw new CniError(CniError.INVALID_ENVIRONMENT,
                            "CNI_COMMAND " + e.command() + " is not handled", "");
            }
        } catch (CniError err) {
            return error(err, stdin, log);
        } catch (IOException ex) {
            return error(new CniError(CniError.IO_FAILURE, "reading the host's state failed: " + ex.getMessage(),
                    backend.name()), stdin, log);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return error(new CniError(CniError.TRY_AGAIN_LATER, "interrupted while waiting for GIDs", ""), stdin, log);
        } catch (RuntimeException ex) {
            return error(new CniError(CniError.INTERNAL, "cmdemux-cni failed: " + ex, backend.name()), stdin, log);
        }
    }

    // ---- commands ----

    private static byte[] version(byte[] stdin) {
        String asked = CniConfig.versionOf(stdin);
        ObjectNode o = F.objectNode();
        // The spec: "cniVersion: the value of cniVersion specified on input".
        o.put("cniVersion", asked == null ? CniVersions.LATEST : asked);
        ArrayNode v = o.putArray("supportedVersions");
        CniVersions.SUPPORTED.forEach(v::add);
        return bytes(o);
    }

    private byte[] add(CniEnv e, CniConfig c, StringBuilder log) throws CniError, IOException, InterruptedException {
        long t0 = System.nanoTime();
        CniArgs args = CniArgs.parse(e.args());
        if (c.prevResult() == null) {
            throw new CniError(CniError.INVALID_CONFIG, "cmdemux-cni is a chained plugin and got no prevResult",
                    "list it after the interface plugin (macvlan, ipvlan, ipoib) in the network's conflist");
        }
        List<ExpectedInterface> expected = PrevResult.sandboxInterfaces(c.prevResult());
        NetnsId netns = netns(e);
        long t1 = System.nanoTime();
        ReadinessReport r;
        try (RdmaState state = backend.state(c.rdma(), e.netns())) {
            r = ReadinessPoller.poll(state, e.netns(), expected, c.rdma().gidType(), c.rdma().gidWait());
        }
        long t2 = System.nanoTime();
        judge(r, c, log);
        register(e, c, args, netns, r, log);
        byte[] out = bytes(c.prevResult());
        // the breakdown of issue 22's first-ADD figures
        PHASES.debug("ADD {} phases: arguments and namespace {} us, readiness {} us, registration {} us",
                e.containerId(), (t1 - t0) / 1000, (t2 - t1) / 1000, (System.nanoTime() - t2) / 1000);
        return out;
    }

    private void check(CniEnv e, CniConfig c, StringBuilder log) throws CniError, IOException, InterruptedException {
        CniArgs args = CniArgs.parse(e.args());
        if (c.prevResult() == null) {
            throw new CniError(CniError.INVALID_CONFIG, "CHECK needs prevResult",
                    "the runtime passes the cached result of the ADD");
        }
        List<ExpectedInterface> expected = PrevResult.sandboxInterfaces(c.prevResult());
        NetnsId netns = netns(e);
        ReadinessReport r;
        try (RdmaState state = backend.state(c.rdma(), e.netns())) {
            r = ReadinessPoller.poll(state, e.netns(), expected, c.rdma().gidType(), c.rdma().gidWait());
        }
        judge(r, c, log);
        // Registering again is harmless, and brings back a registration a daemon without its state lost.
        register(e, c, args, netns, r, log);
    }

    private void del(CniEnv e, CniConfig c, StringBuilder log) {
        PodKey key = new PodKey(c.name(), e.containerId(), e.ifname());
        try {
            backend.registrar(c.controlSocket()).unregister(key);
        } catch (IOException | RuntimeException ex) {
            // DEL is best effort: the daemon prunes registrations whose namespace is gone.
            log.append("cmdemux-cni: DEL of ").append(key).append(": ").append(ex.getMessage()).append('\n');
        }
    }

    private void status(CniConfig c) throws CniError {
        if (!CniVersions.hasStatusAndGc(c.cniVersion())) {
            throw new CniError(CniError.INCOMPATIBLE_VERSION,
                    "STATUS needs cniVersion 1.1.0 or later, not " + c.cniVersion(), "");
        }
        String why = backend.registrar(c.controlSocket()).unavailable();
        if (why != null && c.rdma().required()) {
            throw new CniError(CniError.NOT_AVAILABLE, "cmdemux is not ready: " + why,
                    "start the daemon (systemctl start cmdemux, or the cmdemux DaemonSet);"
                            + " soft RDMA ports deliver nothing without it");
        }
    }

    private void gc(CniConfig c, StringBuilder log) throws CniError, IOException {
        if (!CniVersions.hasStatusAndGc(c.cniVersion())) {
            throw new CniError(CniError.INCOMPATIBLE_VERSION,
                    "GC needs cniVersion 1.1.0 or later, not " + c.cniVersion(), "");
        }
        JsonNode valid = c.raw().get("cni.dev/valid-attachments");
        if (valid == null || !valid.isArray()) {
            throw new CniError(CniError.INVALID_CONFIG, "GC needs \"cni.dev/valid-attachments\", an array",
                    "the runtime lists the attachments that are still valid");
        }
        Set<PodKey> keep = new HashSet<>();
        for (JsonNode a : valid) {
            String id = a.path("containerID").asText("");
            String ifname = a.path("ifname").asText("");
            if (id.isEmpty() || ifname.isEmpty()) {
                throw new CniError(CniError.INVALID_CONFIG,
                        "a valid attachment needs \"containerID\" and \"ifname\": " + a, "");
            }
            keep.add(new PodKey(c.name(), id, ifname));
        }
        List<PodKey> gone = backend.registrar(c.controlSocket()).retainOnly(c.name(), keep);
        if (!gone.isEmpty()) {
            log.append("cmdemux-cni: GC forgot ").append(gone.size()).append(" stale registration(s) of ")
                    .append(c.name()).append('\n');
        }
    }

    // ---- helpers ----

    /** CNI_NETNS must be a pod's namespace file, here and now. */
    private NetnsId netns(CniEnv e) throws CniError {
        try {
            return backend.podNetns(e.netns());
        } catch (NetnsClaims.Refused r) {
            if (r.gone()) {
                throw new CniError(CniError.CONTAINER_UNKNOWN, "the pod's namespace " + e.netns() + " does not exist",
                        "CNI_NETNS names no namespace; the container is gone");
            }
            throw new CniError(CniError.INVALID_ENVIRONMENT, "CNI_NETNS: " + r.getMessage(),
                    "CNI_NETNS must name the pod's network namespace file");
        }
    }

    /** Problems fail the request, or with rdma.required=false only go to the log. */
    private static void judge(ReadinessReport r, CniConfig c, StringBuilder log) throws CniError {
        if (r.ok()) {
            return;
        }
        if (c.rdma().required()) {
            throw r.toError();
        }
        for (ReadinessProblem p : r.problems()) {
            log.append("cmdemux-cni: warning (rdma.required is false, passing anyway): ").append(p.message())
                    .append("; fix: ").append(p.fix()).append('\n');
        }
    }

    private void register(CniEnv e, CniConfig c, CniArgs args, NetnsId netns, ReadinessReport r, StringBuilder log)
            throws CniError {
        if (r.ready().isEmpty()) {
            return;
        }
        PodRef pod = new PodRef(args.podNamespace(), args.podName(), args.podUid());
        PodRegistration reg = new PodRegistration(new PodKey(c.name(), e.containerId(), e.ifname()), e.netns(),
                netns.inode(), pod, c.rdma().gidType(), r.ready());
        String where;
        try {
            where = backend.registrar(c.controlSocket()).register(reg);
        } catch (CniError refused) {
            if (c.rdma().required()) {
                throw refused;
            }
            log.append("cmdemux-cni: warning: ").append(refused.msg()).append('\n');
            return;
        }
        for (Attachment a : r.ready()) {
            log.append("cmdemux-cni: ").append(pod.named() ? pod.display() + " " : "").append(a.ifname()).append(": ")
                    .append(a.device())
                    .append(" port ").append(a.port());
            for (GidAssignment g : a.gids()) {
                log.append(", ").append(InetAddresses.toText(g.ip())).append(" GID index ").append(g.index())
                        .append(" (").append(g.type().text()).append(')');
            }
            if (a.pkey() >= 0) {
                log.append(String.format(", P_Key 0x%04x at index %d", a.pkey(), a.pkeyIndex()));
            }
            log.append("; ").append(where).append('\n');
        }
    }

    private static CniOutcome ok(byte[] stdout, StringBuilder log) {
        return new CniOutcome(0, stdout, log.toString());
    }

    private static CniOutcome error(CniError err, byte[] stdin, StringBuilder log) {
        String v = CniConfig.versionOf(stdin);
        ObjectNode o = F.objectNode();
        o.put("cniVersion", v == null ? CniVersions.LATEST : v);
        o.put("code", err.code());
        o.put("msg", err.msg());
        o.put("details", err.details());
        log.append("cmdemux-cni: error ").append(err.code()).append(": ").append(err.msg()).append('\n');
        // The spec asks for a non-zero exit; 1 is what the reference plugins use.
        return new CniOutcome(1, bytes(o), log.toString());
    }

    private static byte[] bytes(JsonNode n) {
        try {
            return CniConfig.JSON.writeValueAsString(n).concat("\n").getBytes(StandardCharsets.UTF_8);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write JSON: " + e.getMessage(), e);
        }
    }
}
