package io.cmdemux.pathrecord.ls;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.cmdemux.netdev.MalformedException;
import io.cmdemux.netdev.NlMessage;
import io.cmdemux.netdev.testkit.DecoderContract;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * Jazzer fuzz target for LsCodec: a datagram on the RDMA_NL_LS socket, as the Responder reads it
 * (NlMessage.split, then LsCodec.decode per message), gives messages or MalformedExceptions that point
 * inside their message. The committed inputs are in LsRequestJazzerTestInputs/ (see its README).
 */
class LsRequestJazzerTest {
    /** A request's records (GIDs, addresses, the path use) per message. */
    private static final DecoderContract.Budget BUDGET = new DecoderContract.Budget(16 << 10, 32);

    @FuzzTest
    void anyDatagramGivesLsMessagesOrMalformed(byte[] datagram) throws Exception {
        List<NlMessage> messages;
        try {
            messages = NlMessage.split(ByteBuffer.wrap(datagram));
        } catch (MalformedException e) {
            assertThat(e.offset()).as(e.getMessage()).isBetween(0, datagram.length);
            return;
        }
        for (NlMessage m : messages) {
            Exception e = DecoderContract.check(m.length(), BUDGET, () -> LsCodec.decode(m), MalformedException.class);
            if (e != null) {
                assertThat(((MalformedException) e).offset()).as(e.getMessage()).isBetween(0, m.length());
            }
        }
    }
}
