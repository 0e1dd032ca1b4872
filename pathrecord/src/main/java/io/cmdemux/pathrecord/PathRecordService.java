package io.cmdemux.pathrecord;

import io.cmdemux.ingress.resolve.HostState;
import io.cmdemux.pathrecord.ls.IpResolver;
import io.cmdemux.pathrecord.ls.LsTransport;
import io.cmdemux.pathrecord.ls.NetlinkLsTransport;
import io.cmdemux.pathrecord.policy.Policy;
import io.cmdemux.pathrecord.policy.PolicyFile;
import io.cmdemux.pathrecord.sa.SaClient;
import io.cmdemux.pathrecord.sa.SaPathSource;
import io.cmdemux.pathrecord.source.FallbackSource;
import io.cmdemux.pathrecord.source.PathSource;
import io.cmdemux.pathrecord.source.StaticPathSource;
import java.io.IOException;
import java.nio.file.Files;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * The path-record service as `serve` (or `path serve`) runs it: source, policy, cache, resolver
 * and the RDMA_NL_LS responder, built from one {@link PathRecordConfig} by {@link #start}. Where the kernel has no
 * NETLINK_RDMA the responder is OFF with the reason, and everything else keeps working (the CLI's
 * queries, the stats).
 */
public final class PathRecordService implements AutoCloseable {
    private final PathRecordConfig config;
    private final PathSource source;
    private final PathResolver resolver;
    private final Responder responder;
    private final AtomicReference<HostState> state;

    private PathRecordService(PathRecordConfig config, PathSource source, PathResolver resolver, Responder responder,
            AtomicReference<HostState> state) {
        this.config = config;
        this.source = source;
        this.resolver = resolver;
        this.responder = responder;
        this.state = state;
    }

    /** The source the configuration names; "auto" is the SA with the static file (when there is one) behind it. */
    public static PathSource source(PathRecordConfig c) throws IOException {
        switch (c.source()) {
            case "static":
                return StaticPathSource.load(c.staticFile(), c.staticPacketLifetime());
            case "sa":
                return sa(c);
            default:
                PathSource sa = sa(c);
                return c.staticFile() == null ? sa
                        : new FallbackSource(sa, StaticPathSource.load(c.staticFile(), c.staticPacketLifetime()));
        }
    }

    private static PathSource sa(PathRecordConfig c) {
        return new SaPathSource(new SaClient.Settings(c.sa().timeoutMs(), c.sa().retries(), c.sa().maxOutstanding()));
    }

    public static Policy policy(PathRecordConfig c, long generation) throws IOException {
        if (c.policyFile() == null) {
            return Policy.empty();
        }
        if (!Files.isRegularFile(c.policyFile())) {
            throw new java.nio.file.NoSuchFileException(c.policyFile().toString(), null, "no policy file");
        }
        try {
            return PolicyFile.parse(Files.readString(c.policyFile()), generation);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(c.policyFile() + ": " + e.getMessage(), e);
        }
    }

    public static PathResolver resolver(PathRecordConfig c, Supplier<HostState> state, PathSource source,
            Policy policy) {
        return new PathResolver(state, policy, source, new PathCache(c.cacheMaxEntries(), c.cacheTtl(),
                c.cacheTtlPacketLifetimes()));
    }

    /**
     * Builds everything and starts the responder on NETLINK_RDMA, or leaves it OFF with the reason.
     *
     * @param transport null for the host's NETLINK_RDMA socket
     */
    public static PathRecordService start(PathRecordConfig c, HostState initial, LsTransport transport)
            throws IOException {
        AtomicReference<HostState> state = new AtomicReference<>(initial);
        PathSource source = source(c);
        PathResolver resolver = resolver(c, state::get, source, policy(c, 1));
        Responder responder;
        LsTransport t = transport;
        String off = null;
        if (t == null) {
            try {
                t = NetlinkLsTransport.open();
            } catch (NetlinkLsTransport.TransportUnavailableException e) {
                off = e.getMessage();
            }
        }
        if (off != null) {
            responder = Responder.off(off, resolver);
        } else {
            responder = new Responder(t, resolver, IpResolver.of(c.ipToGid()), c.kernelTimeoutMs());
            responder.start();
        }
        return new PathRecordService(c, source, resolver, responder, state);
    }

    public PathRecordConfig config() {
        return config;
    }

    public PathResolver resolver() {
        return resolver;
    }

    public Responder responder() {
        return responder;
    }

    /** A new topology: swap it in, and flush the cache when an address or link went away or moved. */
    public boolean onHostState(HostState next) {
        HostState before = state.getAndSet(next);
        return resolver.cache().onTopologyChange(before.topology(), next.topology());
    }

    /** Re-reads the policy file: a new generation, and the cache of the old one is dropped. */
    public void reloadPolicy() throws IOException {
        resolver.setPolicy(policy(config, resolver.policy().generation() + 1));
    }

    public PathSource source() {
        return source;
    }

    @Override
    public void close() {
        responder.close();
        source.close();
    }
}
