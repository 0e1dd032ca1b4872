package io.cmdemux.cni;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.control.protocol.CniCall;
import io.cmdemux.control.protocol.CniReply;
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
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
    public CniReply cni(CniCall call, ConsumerInfo caller) {
        long t0 = System.nanoTime();
        CniOutcome o = plugin.run(call.env(), call.stdin());
        log.info("CNI {} {} {}: exit {} in {} ms", call.env().getOrDefault("CNI_COMMAND", "?"),
                call.env().getOrDefault("CNI_CONTAINERID", "-"), call.env().getOrDefault("CNI_IFNAME", "-"),
                o.exitCode(), (System.nanoTime() - t0) / 1_000_000);
        return new CniReply(o.exitCode(), o.stdout(), o.stderr());
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
