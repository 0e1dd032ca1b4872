package io.cmdemux.cni;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.control.protocol.CniCall;
import io.cmdemux.control.protocol.ProgramReply;
import io.cmdemux.control.protocol.ConsumerInfo;
import io.cmdemux.control.server.PodHandler;
import io.cmdemux.control.protocol.RequestRefused;
import io.cmdemux.control.protocol.Wire;
import io.cmdemux.pods.Attachment;
import io.cmdemux.pods.GidAssignment;
import io.cmdemux.pods.NetnsClaims;
import io.cmdemux.pods.PodJson;
import io.cmdemux.pods.PodKey;
import io.cmdemux.pods.PodRegistration;
import io.cmdemux.pods.PodRegistry;
import io.cmdemux.control.client.BlockingControlClient;
import io.cmdemux.control.protocol.CniMessages;
import io.cmdemux.gid.Gid;
import io.cmdemux.gid.GidType;
import io.cmdemux.pods.PodRef;
import io.cmdemux.pods.PodStore;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon's answers to CNI, POD_REGISTER and POD_UNREGISTER. A registration that arrives as a
 * message is a claim: its namespace is checked against the kernel, and its GID indices are
 * recomputed from the daemon's own tables; what is kept is the daemon's view, not the sender's.
 */
public final class CniService implements PodHandler {
    private static final Logger log = LoggerFactory.getLogger(CniService.class);
    /** The sender already waited for its GIDs; allow only for the daemon's view lagging a little. */
    private static final Duration CLAIM_WAIT = Duration.ofMillis(1000);

    private final NetnsId host;
    private final RdmaState live;
    private final PodRegistry registry;
    private final CniPlugin plugin;

    public CniService(NetnsId host, RdmaState live, PodRegistry registry) {
        this.host = host;
        this.live = live;
        this.registry = registry;
        this.plugin = CniPlugin.inDaemon(host, live, registry);
    }

    @Override
    public ProgramReply cni(CniCall call, ConsumerInfo caller) {
        long t0 = System.nanoTime();
        CniOutcome o = plugin.run(call.env(), call.stdin());
        String id = call.env().getOrDefault("CNI_CONTAINERID", "-");
        if (!id.equals(WARM_UP_ID) || log.isDebugEnabled()) {
            log.info("CNI {} {} {}: exit {} in {} ms", call.env().getOrDefault("CNI_COMMAND", "?"), id,
                    call.env().getOrDefault("CNI_IFNAME", "-"), o.exitCode(), (System.nanoTime() - t0) / 1_000_000);
        }
        return new ProgramReply(o.exitCode(), o.stdout(), o.stderr());
    }

    /** The container ID of {@link #warmUp}'s own requests, which the log keeps quiet about. */
    static final String WARM_UP_ID = "cmdemux-warm-up";

    /**
     * Runs the ADD path once, soon after the daemon starts, so that the first ADD a kubelet waits on
     * does not pay for it (issue 22: 95-142 ms in the daemon against 9-25 ms for the next ones, more
     * than half of it class loading and interpretation of the readiness read and the registration).
     * Through the daemon's own host socket, as cmdemux-cni would, an ADD of the host namespace, which
     * is refused after the arguments, the configuration and the namespace check; then the readiness read
     * of the host's loopback and a registration's JSON, which that refusal stops short of. It changes
     * nothing: nothing is registered, and nothing is written.
     */
    public void warmUp(Path hostSocket) {
        long t0 = System.nanoTime();
        String self = "/proc/self/ns/net";
        Map<String, String> env = Map.of("CNI_COMMAND", "ADD", "CNI_CONTAINERID", WARM_UP_ID, "CNI_NETNS", self,
                "CNI_IFNAME", "lo", "CNI_ARGS", "IgnoreUnknown=1;K8S_POD_NAMESPACE=warm;K8S_POD_NAME=up",
                "CNI_PATH", "/opt/cni/bin");
        String stdin = "{\"cniVersion\":\"1.0.0\",\"name\":\"cmdemux-warm-up\",\"type\":\"cmdemux-cni\","
                + "\"prevResult\":{\"cniVersion\":\"1.0.0\",\"interfaces\":[{\"name\":\"lo\",\"sandbox\":\""
                + self + "\"}],\"ips\":[{\"interface\":0,\"address\":\"127.0.0.1/8\"}]}}";
        try (BlockingControlClient c = BlockingControlClient.connect(hostSocket, Duration.ofSeconds(5))) {
            c.call(Wire.CNI, CniMessages.cniRequest(0, env, stdin.getBytes(StandardCharsets.UTF_8)).records());
            List<InetAddress> lo = List.of(InetAddress.getLoopbackAddress());
            ReadinessReport r = ReadinessPoller.poll(live, self, List.of(new ExpectedInterface("lo", lo)),
                    GidType.ROCE_V2, Duration.ZERO);
            // the host's lo has no GID: the same shape as a pod's attachment, made up
            InetAddress ip = lo.get(0);
            Attachment a = new Attachment("lo", 1, "warm0", 1, Attachment.ETHERNET,
                    List.of(new GidAssignment(ip, 0, Gid.ofIp(ip), GidType.ROCE_V2)), -1, -1);
            PodRegistration reg = new PodRegistration(new PodKey("cmdemux-warm-up", WARM_UP_ID, "lo"), self,
                    host.inode(), new PodRef("warm", "up", null), GidType.ROCE_V2,
                    r.ready().isEmpty() ? List.of(a) : r.ready());
            PodStore.warmUp(reg);
            log.debug("the CNI path warmed up in {} ms", (System.nanoTime() - t0) / 1_000_000);
        } catch (IOException | RuntimeException e) {
            log.debug("warming up the CNI path: {}", e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public JsonNode register(ObjectNode doc, ConsumerInfo caller) throws RequestRefused {
        PodRegistration claim;
        try {
            claim = PodJson.registration(doc);
        } catch (IllegalArgumentException e) {
            throw new RequestRefused(Wire.EINVAL, "not a registration: " + e.getMessage());
        }
        try {
            NetnsClaims.check(claim.netnsPath(), claim.netnsInode(), host);
        } catch (NetnsClaims.Refused e) {
            throw new RequestRefused(e.gone() ? Wire.ENOENT : Wire.EINVAL, e.getMessage());
        }
        List<ExpectedInterface> expected = new ArrayList<>();
        for (Attachment a : claim.attachments()) {
            expected.add(new ExpectedInterface(a.ifname(), a.gids().stream().map(GidAssignment::ip).toList()));
        }
        ReadinessReport r;
        try {
            r = ReadinessPoller.poll(live, claim.netnsPath(), expected, claim.gidType(), CLAIM_WAIT);
        } catch (IOException e) {
            throw new RequestRefused(Wire.EIO, "cannot read " + claim.netnsPath() + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RequestRefused(Wire.EAGAIN, "interrupted");
        }
        if (r.ready().isEmpty()) {
            throw new RequestRefused(Wire.EINVAL, "none of the claimed interfaces is ready for RDMA here: "
                    + r.toError().details());
        }
        PodRegistration kept = claim.withAttachments(r.ready());
        try {
            registry.put(kept);
        } catch (IOException e) {
            throw new RequestRefused(Wire.EIO, "cannot record the registration: " + e.getMessage());
        }
        log.info("registered pod {} ({}) for {}", kept.key(), kept.pod().display(), caller);
        ObjectNode out = PodJson.json(kept);
        ArrayNode problems = out.putArray("problems");
        r.problems().forEach(p -> problems.add(p.message()));
        return out;
    }

    @Override
    public JsonNode unregister(ObjectNode doc, ConsumerInfo caller) throws RequestRefused {
        PodKey key;
        try {
            key = PodJson.key(doc);
        } catch (IllegalArgumentException e) {
            throw new RequestRefused(Wire.EINVAL, "not a registration key: " + e.getMessage());
        }
        boolean removed;
        try {
            removed = registry.remove(key);
        } catch (IOException e) {
            throw new RequestRefused(Wire.EIO, "cannot delete the registration's file: " + e.getMessage());
        }
        ObjectNode out = PodJson.keyJson(key);
        out.put("removed", removed);
        return out;
    }
}
