package io.cmdemux.control.client;

import io.cmdemux.control.protocol.ConsumerInfo;
import io.cmdemux.control.protocol.DeliveredRequest;
import io.cmdemux.control.protocol.ListenSpec;
import io.cmdemux.control.protocol.ListenerInfo;
import io.cmdemux.control.protocol.RequestRefused;
import io.cmdemux.control.protocol.Wire;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A consumer that stays registered. It connects, says HELLO and LISTENs its specs; when the daemon goes away (a
 * restart, a crash: its listeners go with it), it registers the same specs again with the next daemon by itself,
 * on a thread of its own, as soon as that daemon's socket takes connections ({@link #retryDelayMillis}).
 *
 * <p>Requests come from {@link #nextRequests}, whichever daemon delivered them. Answers go through
 * {@link #client()}, the connection to the daemon of the moment: a request whose daemon has gone cannot be
 * answered any more (the requester's CM retries it, and the next daemon delivers the retry). Thread-safe.
 */
public final class ReconnectingConsumer implements AutoCloseable {
    /** Who the daemon says we are, and our listeners there, one per spec in the order given. */
    public record Registration(ConsumerInfo me, List<ListenerInfo> listeners) {}

    /** What happens to the registration: called on the consumer's own thread, one call at a time. */
    public interface Events {
        /** The daemon went away, and our listeners with it; registering again with the next one. */
        void disconnected(String why);

        /** Registered again, with the daemon that runs now. */
        void reconnected(Registration registration);

        /**
         * The daemon that runs now refused a LISTEN (the address went to another consumer, or left the namespace):
         * no more tries; {@link #nextRequests} then fails with it.
         */
        void refused(RequestRefused why);
    }

    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);

    private final DomainSocketAddress address;
    private final String clientName;
    private final List<ListenSpec> specs;
    private final Events events;
    private final Callable<? extends Channel> socketFactory;
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1,
            new DefaultThreadFactory("cmdemux-consumer", true), EpollIoHandler.newFactory());
    /** Where registering again and the events run, in order. */
    private final ExecutorService again = Executors.newSingleThreadExecutor(
            new DefaultThreadFactory("cmdemux-consumer-register", true));
    private final Object lock = new Object();
    private ControlClient client;
    private Registration registration;
    /** Why there will be no next connection: closed, or a refusal. */
    private String over;

    private ReconnectingConsumer(DomainSocketAddress address, String clientName, List<ListenSpec> specs,
            Events events, Callable<? extends Channel> socketFactory) {
        this.address = address;
        this.clientName = clientName;
        this.specs = List.copyOf(specs);
        this.events = events;
        this.socketFactory = socketFactory;
    }

    /**
     * Registers {@code specs}, trying for up to {@code firstTries} for a daemon that takes them (none running yet,
     * or one that says EAGAIN: still starting, or not yet aware of the caller's namespace).
     *
     * @throws IOException no daemon answered within {@code firstTries}
     * @throws RequestRefused a daemon refused a LISTEN for good (nothing stays registered)
     */
    public static ReconnectingConsumer register(DomainSocketAddress address, String clientName,
            List<ListenSpec> specs, Duration firstTries, Events events)
            throws IOException, RequestRefused, InterruptedException {
        return register(address, clientName, specs, firstTries, events, EpollDomainSocketChannel::new);
    }

    /**
     * The same, with each connection's socket made by {@code socketFactory}: one that runs on a NetnsExecutor thread
     * makes a consumer of another namespace (a socket belongs to the namespace it was made in, and an abstract
     * socket's name is looked up there).
     */
    public static ReconnectingConsumer register(DomainSocketAddress address, String clientName,
            List<ListenSpec> specs, Duration firstTries, Events events, Callable<? extends Channel> socketFactory)
            throws IOException, RequestRefused, InterruptedException {
        ReconnectingConsumer c = new ReconnectingConsumer(address, clientName, specs, events, socketFactory);
        try {
            c.registerWithin(firstTries);
        } catch (IOException | RequestRefused | InterruptedException | RuntimeException e) {
            c.close();
            throw e;
        }
        return c;
    }

    /**
     * How long to wait before the next try, {@code outageMillis} into an outage. A daemon killed and started again
     * by its supervisor (systemd's RestartSec=2 and a start of about a second) is back within 5 s: until then a try
     * every 20 ms, so that requests flow again a few milliseconds after the new daemon's socket opens (a try is one
     * refused connect(2)); then backing off, to once a second, so that a node whose daemon stays down for long is not
     * kept busy by every consumer on it.
     */
    static long retryDelayMillis(long outageMillis) {
        if (outageMillis < 5_000) {
            return 20;
        }
        if (outageMillis < 60_000) {
            return 100;
        }
        return 1_000;
    }

    /** The connection to the daemon of the moment (a closed one while between daemons). */
    public ControlClient client() {
        synchronized (lock) {
            return client;
        }
    }

    /** The registration with the daemon of the moment. */
    public Registration registration() {
        synchronized (lock) {
            return registration;
        }
    }

    /**
     * The requests delivered so far, up to {@code max}, waiting up to {@code timeout} for the first, across a
     * change of daemon; empty when none arrives in time.
     *
     * @throws IOException when closed, or when the next daemon refused our LISTEN
     */
    public List<DeliveredRequest> nextRequests(int max, Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            ControlClient c;
            synchronized (lock) {
                if (over != null) {
                    throw new IOException(over);
                }
                c = client;
            }
            long left = deadline - System.nanoTime();
            try {
                return c.nextRequests(max, Duration.ofNanos(Math.max(0, left)));
            } catch (IOException gone) {
                // this daemon has gone: wait for the next registration (or the end) within what is left
                synchronized (lock) {
                    while (client == c && over == null) {
                        long wait = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                        if (wait <= 0) {
                            return List.of();
                        }
                        lock.wait(wait);
                    }
                }
            }
        }
    }

    /** Registers, trying for {@code tries} (null: until it works, a refusal comes or we close). */
    private void registerWithin(Duration tries) throws IOException, RequestRefused, InterruptedException {
        long start = System.nanoTime();
        while (true) {
            boolean late = tries != null && System.nanoTime() - start > tries.toNanos();
            ControlClient c = null;
            try {
                c = ControlClient.connect(address, CONNECT_TIMEOUT, group, socketFactory);
                ConsumerInfo me = c.hello(clientName);
                List<ListenerInfo> listeners = new ArrayList<>(specs.size());
                for (ListenSpec s : specs) {
                    listeners.add(c.listen(s));
                }
                ControlClient now = c;
                synchronized (lock) {
                    if (over != null) {
                        now.close();
                        return;
                    }
                    client = now;
                    registration = new Registration(me, List.copyOf(listeners));
                    lock.notifyAll();
                }
                now.channel().closeFuture().addListener(f -> onClosed(now));
                return;
            } catch (IOException e) {
                closeQuietly(c);
                if (late) {
                    throw e;
                }
            } catch (RequestRefused e) {
                closeQuietly(c);
                if (e.status() != Wire.EAGAIN || late) {
                    throw e;
                }
            }
            synchronized (lock) {
                if (over != null) {
                    return;
                }
            }
            Thread.sleep(retryDelayMillis(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)));
        }
    }

    /** The connection closed: unless that is us closing, register again. */
    private void onClosed(ControlClient gone) {
        synchronized (lock) {
            if (over != null || client != gone) {
                return;
            }
            again.execute(() -> registerAgain(gone));
        }
    }

    private void registerAgain(ControlClient gone) {
        events.disconnected(gone.closeReason());
        try {
            registerWithin(null);
        } catch (RequestRefused e) {
            synchronized (lock) {
                if (over == null) {
                    over = "the daemon refused a LISTEN: " + e;
                }
                lock.notifyAll();
            }
            events.refused(e);
            return;
        } catch (IOException e) {
            throw new AssertionError("registering without a time limit gave up", e);
        } catch (InterruptedException e) {
            return; // closed
        }
        Registration r;
        synchronized (lock) {
            if (over != null) {
                return;
            }
            r = registration;
        }
        events.reconnected(r);
    }

    private static void closeQuietly(ControlClient c) {
        if (c != null) {
            c.close();
        }
    }

    /** Closes the connection (the daemon drops our listeners) and stops registering. */
    @Override
    public void close() {
        ControlClient c;
        synchronized (lock) {
            if (over == null) {
                over = "closed";
            }
            c = client;
            lock.notifyAll();
        }
        again.shutdownNow();
        closeQuietly(c);
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(3000);
    }
}
