package io.cmdemux.control.server;

import io.cmdemux.control.protocol.RequestRefused;
import io.cmdemux.control.protocol.Wire;
import io.cmdemux.namespaces.NetnsDiscovery;
import io.cmdemux.namespaces.NetnsId;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.unix.PeerCredentials;
import java.io.IOException;
import java.nio.file.Path;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Places a host-socket peer in its namespace: SO_PEERCRED gives the pid that connected,
 * /proc/PID/ns/net its namespace. A pid can exit and be reused, and a thread can setns before it
 * connects, so the answer is checked against the namespace cookie of the connection itself; when
 * the two disagree the peer is refused rather than placed anywhere.
 */
final class PeerIdentity {
    private static final Logger log = LoggerFactory.getLogger(PeerIdentity.class);

    /** @param uid the peer's user from SO_PEERCRED (POD_REGISTER and CNI are for root only) */
    record Identified(NetnsId netns, int pid, int uid, boolean cookieChecked) {}

    private final Path proc;
    private final NamespaceCookies cookies;
    private volatile boolean warnedNoCookie;

    PeerIdentity(Path proc, NamespaceCookies cookies) {
        this.proc = proc;
        this.cookies = cookies;
    }

    /** Blocking (procfs, maybe a setns to measure a cookie): call on a worker thread. */
    Identified identify(EpollDomainSocketChannel ch) throws RequestRefused {
        PeerCredentials cred;
        try {
            cred = ch.peerCredentials();
        } catch (IOException | io.netty.channel.ChannelException e) {
            // ChannelException: the peer was gone and its descriptor closed before this worker got to it.
            throw new RequestRefused(Wire.EPERM, "cannot read SO_PEERCRED: " + e.getMessage());
        }
        int pid = cred.pid();
        if (pid <= 0) {
            throw new RequestRefused(Wire.EPERM, "the peer has no pid in our pid namespace;"
                    + " run the daemon with the host's pid namespace");
        }
        Path nsPath = proc.resolve(Integer.toString(pid)).resolve("ns/net");
        NetnsId netns;
        try {
            netns = NetnsDiscovery.idOf(nsPath);
        } catch (IOException e) {
            throw new RequestRefused(Wire.EPERM, "peer pid " + pid + " is gone or unreadable (" + e.getMessage() + ")");
        }
        OptionalLong socketCookie = NamespaceCookies.read(ch);
        if (socketCookie.isEmpty()) {
            if (!warnedNoCookie) {
                warnedNoCookie = true;
                log.warn("SO_NETNS_COOKIE is not available (Linux < 5.14):"
                        + " host-socket peers are placed by SO_PEERCRED alone");
            }
            return new Identified(netns, pid, cred.uid(), false);
        }
        OptionalLong nsCookie;
        try {
            nsCookie = cookies.cookieOf(netns, nsPath.toString());
        } catch (IOException e) {
            throw new RequestRefused(Wire.EPERM, "cannot confirm the namespace of pid " + pid + ": " + e.getMessage());
        }
        if (nsCookie.isPresent() && nsCookie.getAsLong() != socketCookie.getAsLong()) {
            try {
                nsCookie = cookies.measure(netns, nsPath.toString());
            } catch (IOException e) {
                throw new RequestRefused(Wire.EPERM, "cannot confirm the namespace of pid " + pid + ": "
                        + e.getMessage());
            }
        }
        if (nsCookie.isPresent() && nsCookie.getAsLong() != socketCookie.getAsLong()) {
            throw new RequestRefused(Wire.EPERM, "your socket was created in another network namespace than your"
                    + " process (pid " + pid + ") runs in; connect to @" + Wire.ABSTRACT_NAME
                    + " from inside that namespace instead");
        }
        return new Identified(netns, pid, cred.uid(), nsCookie.isPresent());
    }
}
