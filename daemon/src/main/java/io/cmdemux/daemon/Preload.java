package io.cmdemux.daemon;

import com.github.benmanes.caffeine.cache.Caffeine;
import io.cmdemux.netdev.NativeException;
import io.cmdemux.netdev.NetlinkSocket;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.channel.epoll.Epoll;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * The libraries every daemon start initializes, whatever its command line says, begun on a thread of their own
 * before the command line is parsed. The JVM runs a class's static initialization once, on the first thread that
 * needs it, and makes any other wait for it; so what this thread has done by the time the start needs it is off
 * the start's path, and what it has not is done once either way. On 2 cores, beside picocli's parse (about
 * 0.2 s), this took 0.2 s off serve's way to ready (docs/PERFORMANCE.md, "The daemon's start").
 */
public final class Preload {
    private Preload() {}

    /** Starts the preloading; the caller goes on at once. */
    public static void begin() {
        Thread t = new Thread(Preload::run, "cmdemux-preload");
        t.setDaemon(true);
        t.start();
    }

    /**
     * Each costs tens of milliseconds the first time: binding libc (jnr-ffi generates and loads a class for its
     * interface when the first socket is made), slf4j finding its provider, Netty loading its epoll library, the
     * Prometheus registry's and Caffeine's classes.
     */
    static void run() {
        try (NetlinkSocket s = NetlinkSocket.open(NetlinkSocket.NETLINK_ROUTE, 0)) {
            s.portId();
        } catch (NativeException | LinkageError e) {
            // no netlink, no libc binding: the start meets the same error and says so
        }
        LoggerFactory.getLogger(Daemon.class);
        Epoll.isAvailable();
        ClassLoader loader = Preload.class.getClassLoader();
        for (String c : List.of(PrometheusMeterRegistry.class.getName(), Caffeine.class.getName())) {
            try {
                Class.forName(c, true, loader);
            } catch (ClassNotFoundException e) {
                throw new AssertionError(c + " is a dependency of this module", e);
            }
        }
    }
}
