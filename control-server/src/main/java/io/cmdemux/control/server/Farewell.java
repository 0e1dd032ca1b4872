package io.cmdemux.control.server;

import io.cmdemux.control.protocol.Frame;
import io.cmdemux.control.protocol.Record;
import io.cmdemux.control.protocol.Wire;
import io.netty.channel.Channel;
import io.netty.channel.socket.DuplexChannel;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The last words to a peer: an ERROR, then a half-close, then the close itself once the peer has
 * gone or after {@link #LINGER_MILLIS}. Closing at once loses the ERROR: Linux resets the peer of
 * an AF_UNIX socket closed with bytes still unread (ECONNRESET), and the client's pending write
 * then fails and closes its side before it has read what we sent. So we keep reading, into the
 * void (an unidentified connection's frames and everything after a violation are dropped by the
 * pipeline), until the peer closes on our EOF.
 */
final class Farewell {
    static final long LINGER_MILLIS = 2000;

    private Farewell() {}

    static void send(Channel ch, int status, String text) {
        Frame error = new Frame(Wire.VERSION, Wire.ERROR, status, Wire.FORMAT_RECORDS, 0, 0,
                List.of(Record.text(Wire.R_TEXT, text)));
        ch.writeAndFlush(error).addListener(w -> {
            if (!w.isSuccess() || !(ch instanceof DuplexChannel)) {
                ch.close();
                return;
            }
            ((DuplexChannel) ch).shutdownOutput();
            ch.config().setAutoRead(true);
            ch.eventLoop().schedule(() -> ch.close(), LINGER_MILLIS, TimeUnit.MILLISECONDS);
        });
    }
}
