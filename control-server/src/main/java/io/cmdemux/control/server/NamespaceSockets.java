package io.cmdemux.control.server;

import io.cmdemux.namespaces.DiscoveredNetns;
import io.cmdemux.namespaces.NetnsDiscovery;
import io.cmdemux.namespaces.NetnsExecutor;
import io.cmdemux.namespaces.NetnsId;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One listening abstract socket, @cmdemux, inside every namespace we are told to serve. The
 * kernel keys abstract names by namespace, so a connection accepted on the socket of namespace N
 * comes from a socket created in N: no message, pid or path is needed to place it. The socket is
 * created on a {@link NetnsExecutor} thread inside N (where setns happens) and then bound and
 * served by Netty like any other channel.
 */
final class NamespaceSockets implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(NamespaceSockets.class);

    private final NetnsExecutor executor;
    private final EventLoopGroup acceptGroup;
    private final EventLoopGroup group;
    private final String abstractName;
    private final Function<NetnsId, ChannelHandler> gate;
    private final Function<NetnsId, ChannelHandler> childHandler;
    private final NamespaceCookies cookies;
    private final ControlCounters counters;
    private final Map<NetnsId, Channel> servers = new ConcurrentHashMap<>();
    // why @name could not be opened where it could not; a namespace is warned about once per reason
    private final Map<NetnsId, String> failed = new ConcurrentHashMap<>();

    /**
     * @param acceptGroup where the sockets accept
     * @param group where the connections they admit are served
     * @param gate per namespace: what each new connection meets on the accept loop, before it is handed to group
     */
    NamespaceSockets(NetnsExecutor executor, EventLoopGroup acceptGroup, EventLoopGroup group, String abstractName,
            Function<NetnsId, ChannelHandler> gate, Function<NetnsId, ChannelHandler> childHandler,
            NamespaceCookies cookies, ControlCounters counters) {
        this.executor = executor;
        this.acceptGroup = acceptGroup;
        this.group = group;
        this.gate = gate;
        this.abstractName = abstractName;
        this.childHandler = childHandler;
        this.cookies = cookies;
        this.counters = counters;
    }

    /** Opens the socket in namespaces that appeared and closes it in those that are no longer wanted. Blocking. */
    synchronized void reconcile(Collection<DiscoveredNetns> wanted) {
        Set<NetnsId> want = new HashSet<>();
        for (DiscoveredNetns d : wanted) {
            want.add(d.id());
        }
        failed.keySet().retainAll(want);
        for (NetnsId id : Set.copyOf(servers.keySet())) {
            if (!want.contains(id)) {
                Channel ch = servers.remove(id);
                cookies.forget(id);
                if (ch != null) {
                    // Holding the listening socket would keep a deleted namespace alive.
                    ch.close().syncUninterruptibly();
                    log.debug("closed @{} in vanished namespace {}", abstractName, id);
                }
            }
        }
        for (DiscoveredNetns d : wanted) {
            if (!servers.containsKey(d.id())) {
                try {
                    open(d);
                    failed.remove(d.id());
                } catch (Vanished e) {
                    // A process that owned an unnamed namespace exited between the scan and now: nothing to serve.
                    log.debug("namespace {} ({}) is gone: {}", label(d), d.path(), e.getMessage());
                } catch (IOException e) {
                    counters.inc("abstract.open-failed");
                    if (!e.getMessage().equals(failed.put(d.id(), e.getMessage()))) {
                        log.warn("cannot open @{} in namespace {} ({}): {}", abstractName, label(d), d.path(),
                                e.getMessage());
                    }
                }
            }
        }
    }

    Set<NetnsId> served() {
        return Set.copyOf(servers.keySet());
    }

    /** Whether the last reconcile left some wanted namespace without its socket (worth another try later). */
    boolean incomplete() {
        return !failed.isEmpty();
    }

    /** The namespace could not be entered or is no longer the one the path opened. */
    private static final class Vanished extends IOException {
        Vanished(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private void open(DiscoveredNetns d) throws IOException {
        EpollServerDomainSocketChannel server;
        try {
            server = executor.call(d.path(), () -> {
                // A /proc/PID path can outlive its process and name another namespace once the pid is reused.
                NetnsId here = NetnsDiscovery.idOf(Path.of("/proc/thread-self/ns/net"));
                if (!here.equals(d.id())) {
                    throw new IOException(d.path() + " opens namespace " + here + " now, not " + d.id());
                }
                return new EpollServerDomainSocketChannel();
            });
        } catch (IOException e) {
            throw new Vanished(e.getMessage(), e);
        }
        ChannelFuture bound = new ServerBootstrap()
                .group(acceptGroup, group)
                .channelFactory(() -> server)
                .handler(gate.apply(d.id()))
                .childHandler(childHandler.apply(d.id()))
                .bind(new DomainSocketAddress("\0" + abstractName))
                .awaitUninterruptibly();
        if (!bound.isSuccess()) {
            server.unsafe().closeForcibly();
            throw new IOException("bind(@" + abstractName + "): " + bound.cause().getMessage()
                    + (bound.cause().getMessage() != null && bound.cause().getMessage().contains("in use")
                            ? " (another process in this namespace holds the name)" : ""));
        }
        NamespaceCookies.read(server).ifPresent(c -> cookies.learn(d.id(), c));
        servers.put(d.id(), server);
        server.closeFuture().addListener(f -> servers.remove(d.id(), server));
        counters.inc("abstract.opened");
        log.debug("serving @{} in namespace {}", abstractName, label(d));
    }

    private static String label(DiscoveredNetns d) {
        return d.names().isEmpty() ? (d.self() ? "host" : Long.toString(d.id().inode())) : d.names().get(0);
    }

    @Override
    public synchronized void close() {
        for (Channel ch : servers.values()) {
            ch.close().syncUninterruptibly();
        }
        servers.clear();
    }
}
