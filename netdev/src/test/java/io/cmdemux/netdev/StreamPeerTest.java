package io.cmdemux.netdev;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.channel.epoll.Epoll;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.channel.unix.Socket;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Real Unix stream sockets in this process, made with Netty's native socket calls. */
class StreamPeerTest {
    private Socket listening;
    private Socket client;
    private int accepted = -1;

    @BeforeEach
    void connect() throws IOException {
        Epoll.ensureAvailability();
        listening = Socket.newSocketDomain();
        DomainSocketAddress name =
                new DomainSocketAddress("\0cmdemux-streampeer-" + ThreadLocalRandom.current().nextLong());
        listening.bind(name);
        listening.listen(4);
        client = Socket.newSocketDomain();
        client.connect(name);
        accepted = listening.accept(new byte[64]);
        assertThat(accepted).as("an accepted descriptor").isPositive();
    }

    @AfterEach
    void close() throws IOException {
        Native.close(accepted);
        client.close();
        listening.close();
    }

    @Test
    void aConnectedPeerHasNotHungUp() throws IOException {
        assertThat(StreamPeer.hasHungUp(accepted)).isFalse();
    }

    @Test
    void aPeerThatClosedHasHungUpEvenWithItsLastBytesUnread() throws IOException {
        ByteBuffer last = ByteBuffer.allocateDirect(4).putInt(7).flip();
        assertThat(client.write(last, 0, 4)).isEqualTo(4);
        assertThat(StreamPeer.hasHungUp(accepted)).isFalse();
        client.close();
        assertThat(StreamPeer.hasHungUp(accepted)).isTrue();
    }

    @Test
    void aPeerThatShutItsWritingDownHasHungUp() throws IOException {
        client.shutdown(false, true);
        assertThat(StreamPeer.hasHungUp(accepted)).isTrue();
    }

    @Test
    void aClosedDescriptorIsAnErrorNotAnAnswer() throws IOException {
        int fd = accepted;
        Native.close(fd);
        accepted = -1;
        // POLLNVAL: poll says the descriptor is not open, which must not read as "still connected".
        assertThatThrownBy(() -> StreamPeer.hasHungUp(fd)).isInstanceOf(NativeException.class);
    }
}
