package io.cmdemux.control.server;

import io.cmdemux.control.protocol.Frame;
import io.cmdemux.control.protocol.ReadGate;
import io.cmdemux.control.protocol.Record;
import io.cmdemux.control.protocol.Wire;
import io.netty.channel.Channel;
import io.netty.channel.unix.Socket;
import io.netty.channel.unix.UnixChannel;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The last words to a peer: an ERROR, then a half-close, then the close itself once the peer has
 * gone or after {@link #LINGER_MILLIS}. Closing at once loses the ERROR: Linux resets the peer of
 * an AF_UNIX socket closed with bytes still unread (ECONNRESET), and the client's pending write
 * then fails and closes its side before it has read what we sent. So we keep reading, into the
 * void (an unidentified connection's frames and everything after a violation are dropped by the
 * pipeline), until the peer closes on our EOF.
 *
 * <p>The half-close is shutdown(2) on the socket itself, not Netty's {@code shutdownOutput}: that one makes an
 * exception with a stack trace for each channel it half-closes, to fail writes nobody queued, and a pod that opens
 * a thousand connections beyond its limit had the event loop take a thousand of them, between the deliveries.
 */
final class Farewell {
    static final long LINGER_MILLIS = 2000;

    private Farewell() {}

    static void send(Channel ch, int status, String text) {
        Frame error = new Frame(Wire.VERSION, Wire.ERROR, status, Wire.FORMAT_RECORDS, 0, 0,
                List.of(Record.text(Wire.R_TEXT, text)));
        ch.writeAndFlush(error).addListener(w -> {
            if (!w.isSuccess() || !(ch instanceof UnixChannel u) || !(u.fd() instanceof Socket s)) {
                ch.close();
                return;
            }
            try {
                s.shutdown(false, true);
            } catch (IOException e) {
                ch.close(); // gone meanwhile
                return;
            }
            ReadGate.of(ch).open();
            ch.eventLoop().schedule(() -> ch.close(), LINGER_MILLIS, TimeUnit.MILLISECONDS);
        });
    }
}
