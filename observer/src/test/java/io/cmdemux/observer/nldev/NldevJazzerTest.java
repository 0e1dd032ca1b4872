package io.cmdemux.observer.nldev;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.cmdemux.netdev.MalformedException;
import io.cmdemux.netdev.NlMessage;
import io.cmdemux.netdev.testkit.DecoderContract;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Jazzer fuzz target for the nldev decoder (issue 20 §1): a NETLINK_RDMA datagram as the kernel sends it, each
 * message through the GET/PORT_GET and RES_CM_ID_GET decoders; a typed MalformedException or a counted skip,
 * nothing else. Inputs: NldevJazzerTestInputs/ (the lab's nldev replies, see its README).
 */
class NldevJazzerTest {
    private static final DecoderContract.Budget BUDGET = new DecoderContract.Budget(64 << 10, 64);

    @FuzzTest
    void anyNldevDatagramDecodesOrIsMalformed(byte[] datagram) throws Exception {
        DecoderContract.check(datagram.length, BUDGET, () -> {
            List<NlMessage> msgs = NlMessage.split(ByteBuffer.wrap(datagram));
            for (NlMessage m : msgs) {
                try {
                    Nldev.link(m);
                } catch (MalformedException e) {
                    // typed: the next decoder still gets its try
                }
                try {
                    Nldev.cmIds(m);
                } catch (MalformedException e) {
                    // typed
                }
            }
            List<String> skipped = new ArrayList<>();
            NldevDump.of(msgs, skipped);
            if (skipped.size() > msgs.size()) {
                throw new AssertionError(skipped.size() + " skips for " + msgs.size() + " messages");
            }
        }, MalformedException.class);
    }
}
