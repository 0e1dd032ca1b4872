package io.cmdemux.control.server;

import io.cmdemux.namespaces.NetnsDiscovery;
import io.cmdemux.namespaces.NetnsExecutor;
import io.cmdemux.namespaces.NetnsId;
import io.netty.channel.Channel;
import io.netty.channel.ChannelException;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.unix.RawUnixChannelOption;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Network namespace cookies (SO_NETNS_COOKIE, Linux 5.14): the kernel's 64-bit id of the
 * namespace a socket was created in. A Unix stream connection is accepted on a socket created in
 * the connecting socket's namespace (unix_stream_connect), so the cookie of an accepted host-socket
 * connection names the client's namespace without trusting any pid. The cookie of each namespace
 * is learned from the @cmdemux socket we open there, or measured with a throw-away socket.
 */
final class NamespaceCookies {
    // <asm-generic/socket.h>
    static final int SOL_SOCKET = 1;
    static final int SO_NETNS_COOKIE = 71;
    private static final RawUnixChannelOption OPTION = new RawUnixChannelOption("SO_NETNS_COOKIE", SOL_SOCKET,
            SO_NETNS_COOKIE, 8);

    private final NetnsExecutor executor;
    private final ConcurrentHashMap<NetnsId, Long> known = new ConcurrentHashMap<>();

    NamespaceCookies(NetnsExecutor executor) {
        this.executor = executor;
    }

    /** The cookie of the namespace a socket lives in; empty on kernels without SO_NETNS_COOKIE. */
    static OptionalLong read(Channel ch) {
        try {
            ByteBuffer b = ch.config().getOption(OPTION);
            return b == null ? OptionalLong.empty()
                    : OptionalLong.of(b.duplicate().order(ByteOrder.nativeOrder()).getLong(0));
        } catch (ChannelException e) {
            return OptionalLong.empty(); // ENOPROTOOPT before Linux 5.14
        }
    }

    void learn(NetnsId id, long cookie) {
        known.put(id, cookie);
    }

    void forget(NetnsId id) {
        known.remove(id);
    }

    /**
     * The cookie of namespace {@code id}, measured inside {@code path} when not known yet. Blocks
     * (it may enter the namespace on a {@link NetnsExecutor} thread); never call it on an event loop.
     *
     * @throws IOException when {@code path} no longer opens {@code id} (the process behind a
     *     /proc path exited and its pid was reused) or cannot be entered
     */
    OptionalLong cookieOf(NetnsId id, String path) throws IOException {
        Long c = known.get(id);
        if (c != null) {
            return OptionalLong.of(c);
        }
        return measure(id, path);
    }

    /**
     * Measures again, ignoring what is known: nsfs inodes are reused once a namespace is freed, so
     * a remembered cookie may belong to a dead namespace that had the same inode.
     */
    OptionalLong measure(NetnsId id, String path) throws IOException {
        OptionalLong measured = executor.call(path, () -> {
            NetnsId here = NetnsDiscovery.idOf(Path.of("/proc/thread-self/ns/net"));
            if (!here.equals(id)) {
                throw new IOException(path + " opens namespace " + here + " now, not " + id);
            }
            EpollDomainSocketChannel probe = new EpollDomainSocketChannel();
            try {
                return read(probe);
            } finally {
                probe.unsafe().closeForcibly();
            }
        });
        measured.ifPresent(v -> known.put(id, v));
        return measured;
    }
}
