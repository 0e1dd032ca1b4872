package io.cmdemux.control.server;

import io.cmdemux.control.protocol.ReadGate;
import io.cmdemux.control.protocol.RequestRefused;
import io.cmdemux.control.protocol.Via;
import io.cmdemux.control.protocol.Wire;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.netdev.NativeException;
import io.cmdemux.netdev.StreamPeer;
import io.netty.channel.Channel;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.unix.PeerCredentials;
import io.netty.channel.unix.UnixChannel;
import io.netty.util.AttributeKey;
import java.io.IOException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The live connections: admits them (a limit per namespace), places host-socket peers in their
 * namespace on a worker thread before anything is read from them, and when one closes, removes
 * its listeners.
 */
final class Connections {
    private static final Logger log = LoggerFactory.getLogger(Connections.class);
    static final String TOO_MANY = "too-many-connections";
    static final String TOO_MANY_TEXT = "too many connections from your namespace";
    /** The namespace whose slot an @cmdemux connection took at its accept, until {@link #accepted} makes it its. */
    private static final AttributeKey<NetnsId> SLOT = AttributeKey.valueOf(Connections.class, "slot");

    private final ConcurrentHashMap<Long, Connection> live = new ConcurrentHashMap<>();
    // Admitted connections per namespace, kept beside live so that admitting one is not a walk over all of them:
    // a pod opening a thousand connections at once made each accept count every live connection (issue 20 §4).
    private final ConcurrentHashMap<NetnsId, Integer> admitted = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final PeerIdentity identity;
    private final ListenerRegistry registry;
    private final Executor workers;
    private final ControlCounters counters;
    private final LogBudget logBudget;
    private final int maxPerNamespace;
    private final int maxOutstanding;
    private volatile boolean closed;

    Connections(PeerIdentity identity, ListenerRegistry registry, Executor workers, ControlCounters counters,
            LogBudget logBudget, int maxPerNamespace, int maxOutstanding) {
        this.identity = identity;
        this.registry = registry;
        this.workers = workers;
        this.counters = counters;
        this.logBudget = logBudget;
        this.maxPerNamespace = maxPerNamespace;
        this.maxOutstanding = maxOutstanding;
    }

    Connection get(long consumerId) {
        return live.get(consumerId);
    }

    /**
     * Whether a consumer's peer has closed its end, asked of the kernel: its own event loop, which may be another
     * than the caller's, may not have read the end of stream yet. A connection already gone or closing counts, and so
     * does a peer that only shut its writing down: its loop closes it too once it reads the end of stream.
     */
    boolean hasHungUp(long consumerId) {
        Connection c = live.get(consumerId);
        if (c == null || !c.channel.isOpen()) {
            return true;
        }
        boolean gone;
        try {
            gone = StreamPeer.hasHungUp(((UnixChannel) c.channel).fd().intValue());
        } catch (NativeException e) {
            gone = !c.channel.isOpen(); // closed between the two looks; otherwise say what the loop will find
        }
        if (gone) {
            counters.inc("listen.freed-by-hung-up-peer");
        }
        return gone;
    }

    int size() {
        return live.size();
    }

    /** Connections per namespace; peers of the host socket not yet placed are left out. */
    java.util.Map<NetnsId, Integer> perNamespace() {
        return java.util.Map.copyOf(admitted);
    }

    /**
     * On the accept loop ({@link AdmissionGate}), before an @cmdemux connection is registered anywhere: takes one
     * of its namespace's slots for it. The slot goes back when the connection closes, whether or not it ever became
     * a {@link Connection}.
     */
    boolean admitAtAccept(Channel ch, NetnsId ns) {
        if (closed || !admit(ns)) {
            return false;
        }
        ch.attr(SLOT).set(ns);
        ch.closeFuture().addListener(f -> {
            if (ch.attr(SLOT).getAndSet(null) != null) {
                release(ns);
            }
        });
        return true;
    }

    /**
     * On the event loop, when a connection is accepted. An @cmdemux peer, whose slot its {@link AdmissionGate}
     * took, is placed at once in the namespace whose socket accepted it; a host-socket peer is placed later, off
     * the loop.
     *
     * @return null when the connection was refused
     */
    Connection accepted(Channel ch, Via via, NetnsId acceptedIn) {
        long id = ids.incrementAndGet();
        if (closed) {
            ch.close();
            return null;
        }
        if (via == Via.ABSTRACT_SOCKET) {
            if (ch.attr(SLOT).getAndSet(null) == null) {
                ch.close(); // closed between its accept and now: the slot went back with it
                return null;
            }
            int pid = 0;
            try {
                PeerCredentials cred = ((EpollDomainSocketChannel) ch).peerCredentials();
                pid = cred.pid(); // for logs only: the accepting socket already proved the namespace
            } catch (IOException e) {
                log.debug("no SO_PEERCRED for an abstract-socket peer: {}", e.getMessage());
            }
            Connection c = new Connection(id, ch, via, acceptedIn, pid, maxOutstanding);
            live.put(id, c);
            log.debug("{} connected", c);
            return c;
        }
        Connection c = new Connection(id, ch, via, null, 0, maxOutstanding);
        live.put(id, c);
        try {
            workers.execute(() -> identify(c));
        } catch (RejectedExecutionException e) {
            live.remove(id);
            refuse(ch, "busy", Wire.EAGAIN, "the daemon is busy; try again");
            return null;
        }
        return c;
    }

    /** On a worker: SO_PEERCRED and /proc may take a moment, and a cookie may need a setns. */
    private void identify(Connection c) {
        if (!c.channel.isActive()) {
            return; // gone while it waited for a worker: its descriptor may be closed already
        }
        PeerIdentity.Identified who;
        try {
            who = identity.identify((EpollDomainSocketChannel) c.channel);
        } catch (RequestRefused e) {
            c.channel.eventLoop().execute(() -> refuse(c.channel, "unidentified", e.status(), e.getMessage()));
            return;
        }
        c.channel.eventLoop().execute(() -> {
            if (!c.channel.isActive()) {
                return;
            }
            if (!admit(who.netns())) {
                refuse(c.channel, TOO_MANY, Wire.EAGAIN, TOO_MANY_TEXT);
                return;
            }
            c.identified(who.netns(), who.pid(), who.uid());
            log.debug("{} connected{}", c, who.cookieChecked() ? "" : " (namespace not confirmed by cookie)");
            ReadGate.of(c.channel).release(ReadGate.Reason.UNIDENTIFIED);
        });
    }

    /** Takes one of the namespace's connection slots, if one is free; {@link #closed} gives it back. */
    private boolean admit(NetnsId ns) {
        boolean[] taken = {false};
        admitted.compute(ns, (k, n) -> {
            int now = n == null ? 0 : n;
            if (now >= maxPerNamespace) {
                return n;
            }
            taken[0] = true;
            return now + 1;
        });
        return taken[0];
    }

    private void release(NetnsId ns) {
        admitted.computeIfPresent(ns, (k, n) -> n <= 1 ? null : n - 1);
    }

    /** ERROR, then close ({@link Farewell}); counted as closed.{@code counter}. */
    void refuse(Channel ch, String counter, int status, String text) {
        counters.inc("closed." + counter);
        log.debug("refusing a control connection ({}): {}", counter, text);
        Farewell.send(ch, status, text);
    }

    private volatile java.util.function.Consumer<String> goneHandler;

    void onGone(java.util.function.Consumer<String> handler) {
        this.goneHandler = handler;
    }

    /** On the event loop, when a connection closes: its listeners go with it, then its connections. */
    void closed(Connection c) {
        // A connection holds a slot from its admission on, and only then has a namespace.
        if (live.remove(c.id) != null && c.netns() != null) {
            release(c.netns());
        }
        int n = registry.dropConsumer(c.id);
        java.util.function.Consumer<String> gone = goneHandler;
        if (gone != null) {
            try {
                gone.accept(ListenerRegistry.owner(c.id));
            } catch (RuntimeException e) {
                log.warn("cleaning up after {} failed: {}", c, e.toString());
            }
        }
        if (n > 0) {
            logBudget.info(log, c.netns(), "{} disconnected; its {} listener(s) are gone", c, n);
        } else {
            log.debug("{} disconnected", c);
        }
    }

    void closeAll() {
        closed = true;
        for (Connection c : live.values()) {
            c.channel.close();
        }
    }
}
