package io.cmdemux.ingress.wire;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.cmdemux.netdev.MalformedException;
import io.cmdemux.netdev.testkit.DecoderContract;

/**
 * Jazzer fuzz target for CmCodec: a CM MAD of any content decodes to a message or a MalformedException
 * inside it; what decodes encodes to bytes that decode to the same message. The committed inputs are in
 * CmMadJazzerTestInputs/ (see its README).
 */
class CmMadJazzerTest {
    /** One MAD's records: the header, the message with its paths and private data. */
    private static final DecoderContract.Budget BUDGET = new DecoderContract.Budget(8 << 10, 16);

    @FuzzTest
    void anyMadDecodesOrIsMalformedAndReencodesToItself(byte[] mad) throws Exception {
        Mad[] decoded = new Mad[1];
        Exception e = DecoderContract.check(
                mad.length, BUDGET, () -> decoded[0] = CmCodec.decode(mad, 0, mad.length), MalformedException.class);
        if (e != null) {
            assertThat(((MalformedException) e).offset()).as(e.getMessage()).isBetween(0, mad.length);
            return;
        }
        assertThat(CmCodec.decode(CmCodec.encode(decoded[0]), 0, Mad.SIZE)).isEqualTo(decoded[0]);
    }
}
