package io.cmdemux.control.client;

import io.cmdemux.control.protocol.Frame;
import io.cmdemux.control.protocol.FrameCodec;
import io.cmdemux.control.protocol.ProtocolException;
import io.cmdemux.control.protocol.Record;
import io.cmdemux.control.protocol.Wire;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A small blocking client of the host socket for one-shot callers (the CNI fallback, scripts):
 * JDK Unix sockets only, so that a short-lived JVM does not start Netty for one request. One
 * request at a time; every wait is bounded.
 */
public final class BlockingControlClient implements AutoCloseable {
    private final SocketChannel channel;
    private final Selector selector;
    private final Duration timeout;
    private int seq;

    private BlockingControlClient(SocketChannel channel, Selector selector, Duration timeout) {
        this.channel = channel;
        this.selector = selector;
        this.timeout = timeout;
    }

    /**
     * @throws IOException when nothing listens there (ENOENT, ECONNREFUSED) or the connect takes
     *     longer than {@code timeout}
     */
    public static BlockingControlClient connect(Path socket, Duration timeout) throws IOException {
        return connect(socket, timeout, timeout);
    }

    /** @param callTimeout the bound on each {@link #call}, which may be longer than a connect should take */
    public static BlockingControlClient connect(Path socket, Duration timeout, Duration callTimeout)
            throws IOException {
        SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
        Selector sel = null;
        try {
            ch.configureBlocking(false);
            sel = Selector.open();
            if (!ch.connect(UnixDomainSocketAddress.of(socket))) {
                ch.register(sel, SelectionKey.OP_CONNECT);
                if (sel.select(Math.max(1, timeout.toMillis())) == 0 || !ch.finishConnect()) {
                    throw new IOException("connecting to " + socket + " timed out");
                }
                sel.selectedKeys().clear();
            }
            return new BlockingControlClient(ch, sel, callTimeout);
        } catch (IOException | RuntimeException e) {
            ch.close();
            if (sel != null) {
                sel.close();
            }
            throw e;
        }
    }

    /** Sends a request and returns its reply, whatever its status; an ERROR from the daemon is an IOException. */
    public Frame call(int type, List<Record> records) throws IOException {
        int s = ++seq;
        ByteBuffer out = ByteBuffer.wrap(FrameCodec.encode(Frame.of(type, s, records)));
        long deadline = System.nanoTime() + timeout.toNanos();
        while (out.hasRemaining()) {
            if (channel.write(out) == 0) {
                await(SelectionKey.OP_WRITE, deadline);
            }
        }
        while (true) {
            Frame f = readFrame(deadline);
            if (f.type() == Wire.ERROR) {
                throw new IOException("the daemon closed the connection: " + Wire.errnoName(f.status())
                        + ": " + f.text());
            }
            if (f.isReply() && f.seq() == s) {
                return f;
            }
        }
    }

    private Frame readFrame(long deadline) throws IOException {
        ByteBuffer header = ByteBuffer.allocate(Wire.HEADER_SIZE);
        fill(header, deadline);
        long length = header.getInt(8) & 0xffffffffL;
        if (length < Wire.HEADER_SIZE || length > Wire.MAX_REPLY_FRAME) {
            throw new IOException("the daemon sent a frame of " + length + " bytes");
        }
        ByteBuffer all = ByteBuffer.allocate((int) length);
        all.put(header.array());
        fill(all, deadline);
        try {
            return FrameCodec.decode(all.array(), Wire.MAX_REPLY_FRAME);
        } catch (ProtocolException e) {
            throw new IOException("the daemon sent a frame this client cannot read: " + e.getMessage(), e);
        }
    }

    private void fill(ByteBuffer b, long deadline) throws IOException {
        while (b.hasRemaining()) {
            int n = channel.read(b);
            if (n < 0) {
                throw new IOException("the daemon closed the connection");
            }
            if (n == 0) {
                await(SelectionKey.OP_READ, deadline);
            }
        }
    }

    private void await(int op, long deadline) throws IOException {
        long left = (deadline - System.nanoTime()) / 1_000_000;
        if (left <= 0) {
            throw new IOException("no reply from the daemon within " + timeout.toMillis() + " ms");
        }
        SelectionKey k = channel.register(selector, op);
        try {
            if (selector.select(left) == 0) {
                throw new IOException("no reply from the daemon within " + timeout.toMillis() + " ms");
            }
        } finally {
            selector.selectedKeys().clear();
            k.interestOps(0);
        }
    }

    @Override
    public void close() {
        try {
            selector.close();
        } catch (IOException e) {
            // nothing left to release
        }
        try {
            channel.close();
        } catch (IOException e) {
            // nothing left to release
        }
    }
}
