package io.cmdemux.control.server;

import io.cmdemux.control.protocol.ConsumerInfo;
import io.cmdemux.control.protocol.Via;
import io.cmdemux.namespaces.NetnsId;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One consumer's connection: who it is (its namespace, proven when the connection was accepted)
 * and which delivered requests it may still answer.
 */
final class Connection {
    final long id;
    final Channel channel;
    final Via via;
    private volatile NetnsId netns;
    private volatile int pid;
    private volatile int uid = -1;
    private volatile String clientName = "";
    private final AtomicInteger seq = new AtomicInteger();
    /** Deliveries and CM events queued by the pipeline's and the timers' threads for the event loop to write. */
    private final Queue<ByteBuf> outbox = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean drainQueued = new AtomicBoolean();
    final AtomicBoolean queryRunning = new AtomicBoolean();
    private final Outstanding outstanding;

    Connection(long id, Channel channel, Via via, NetnsId netns, int pid, int maxOutstanding) {
        this.id = id;
        this.channel = channel;
        this.via = via;
        this.netns = netns;
        this.pid = pid;
        this.outstanding = new Outstanding(maxOutstanding);
    }

    /** null until a host-socket peer has been identified. */
    NetnsId netns() {
        return netns;
    }

    int pid() {
        return pid;
    }

    void identified(NetnsId ns, int peerPid, int peerUid) {
        this.netns = ns;
        this.pid = peerPid;
        this.uid = peerUid;
    }

    /** The host-socket peer's uid from SO_PEERCRED; -1 for @cmdemux peers, whose uid is not checked. */
    int uid() {
        return uid;
    }

    String clientName() {
        return clientName;
    }

    void clientName(String name) {
        this.clientName = name;
    }

    int nextSeq() {
        return seq.incrementAndGet();
    }

    /** Whether this consumer holds as many unanswered deliveries as it may. */
    boolean full() {
        synchronized (outstanding) {
            return outstanding.full();
        }
    }

    void expect(long traceId, long listenerId) {
        synchronized (outstanding) {
            outstanding.put(traceId, listenerId);
        }
    }

    /**
     * The listener a delivered, unanswered request went to; null when this consumer never got it (or already answered).
     */
    Long answer(long traceId) {
        synchronized (outstanding) {
            return outstanding.remove(traceId);
        }
    }

    /**
     * Queues a delivery or an event from any thread. A burst of them shares one event-loop task and one
     * flush (one write(2)): only the delivery that finds no drain queued hands the loop a task, and
     * that task writes everything queued by the time it runs.
     */
    void send(ByteBuf bytes, ControlCounters counters) {
        if (queue(bytes)) {
            drainSoon(counters);
        }
    }

    /**
     * Queues a delivery without waking the event loop.
     *
     * @return true when no drain is queued: the caller must call {@link #drainSoon} (once, later if it
     *     likes), which takes this delivery and all queued after it
     */
    boolean queue(ByteBuf bytes) {
        outbox.offer(bytes);
        // false: the queued drain takes it (it clears the flag before it polls)
        return drainQueued.compareAndSet(false, true);
    }

    /** Hands the event loop a task that writes everything queued by the time it runs, with one flush. */
    void drainSoon(ControlCounters counters) {
        try {
            channel.eventLoop().execute(() -> drain(counters));
        } catch (RejectedExecutionException e) {
            // the server is shutting down
            ByteBuf b;
            while ((b = outbox.poll()) != null) {
                b.release();
                counters.inc("deliver.write-failed");
            }
            drainQueued.set(false);
        }
    }

    private void drain(ControlCounters counters) {
        drainQueued.set(false);
        ChannelFutureListener failed = w -> {
            if (!w.isSuccess()) {
                counters.inc("deliver.write-failed");
            }
        };
        boolean wrote = false;
        ByteBuf b;
        while ((b = outbox.poll()) != null) {
            channel.write(b).addListener(failed);
            wrote = true;
        }
        if (wrote) {
            channel.flush();
        }
    }

    ConsumerInfo info(String netnsName) {
        return new ConsumerInfo(id, netns, via, pid, netnsName, clientName);
    }

    @Override
    public String toString() {
        return "consumer-" + id + " (" + via + ", netns " + netns + (pid > 0 ? ", pid " + pid : "")
                + (clientName.isEmpty() ? "" : ", " + clientName) + ")";
    }
}
