package io.cmdemux.pathrecord.testkit;

import io.cmdemux.pathrecord.ls.LsTransport;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The responder's transport without a kernel: datagrams in the kernel's byte layout go in with the
 * sender's port id (0 for the kernel), replies come out in order.
 */
public final class InMemoryTransport implements LsTransport {
    public static final int PORT_ID = 4242;
    private final BlockingQueue<Received> inbound = new LinkedBlockingQueue<>();
    private final BlockingQueue<byte[]> sent = new LinkedBlockingQueue<>();
    private volatile boolean closed;

    /** A datagram from the kernel (nl_pid 0). */
    public void fromKernel(byte[] datagram) {
        from(0, datagram);
    }

    public void from(int senderPortId, byte[] datagram) {
        inbound.add(new Received(ByteBuffer.wrap(datagram.clone()).order(ByteOrder.nativeOrder()), senderPortId));
    }

    /** The next message the responder sent, waiting up to {@code ms}; null if none. */
    public byte[] nextSent(long ms) {
        try {
            return sent.poll(ms, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    public List<byte[]> drainSent() {
        List<byte[]> out = new ArrayList<>();
        sent.drainTo(out);
        return out;
    }

    @Override
    public Received receive(int timeoutMs) {
        try {
            return inbound.poll(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    @Override
    public void send(byte[] message) {
        sent.add(message.clone());
    }

    @Override
    public int portId() {
        return PORT_ID;
    }

    public boolean closed() {
        return closed;
    }

    @Override
    public void close() {
        closed = true;
    }
}
