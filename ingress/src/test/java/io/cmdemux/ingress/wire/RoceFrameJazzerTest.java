package io.cmdemux.ingress.wire;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.cmdemux.netdev.MalformedException;
import io.cmdemux.netdev.testkit.DecoderContract;
import java.util.Arrays;

/**
 * Jazzer fuzz target for the frame decoder: a frame of any content, Ethernet or a bare IP packet as the
 * first byte of the input says (even, odd), decodes through RoceDecoder to a frame or a Failed that
 * points inside it, never an exception. The daemon's in-place reader RoceFrameView agrees with it: the
 * word-at-a-time shortcut and the field-by-field checks accept and refuse the same frames (with the same
 * reason), and every field read in place equals the records'. Linux cooked frames come through
 * CaptureFileJazzerTest, in captures of those link types. The committed inputs are in
 * RoceFrameJazzerTestInputs/ (see its README).
 */
class RoceFrameJazzerTest {
    /** The records of one frame (L2, L3, BTH, DETH, the MAD tree with its private data) and the error strings. */
    private static final DecoderContract.Budget BUDGET = new DecoderContract.Budget(16 << 10, 16);

    @FuzzTest
    void anyFrameDecodesOrFailsInsideItAndTheViewAgrees(byte[] input) throws Exception {
        if (input.length == 0) {
            return;
        }
        boolean ethernet = (input[0] & 1) == 0;
        byte[] frame = Arrays.copyOfRange(input, 1, input.length);
        FrameResult[] result = new FrameResult[1];
        DecoderContract.check(frame.length, BUDGET,
                () -> result[0] = ethernet ? RoceDecoder.decodeEthernet(frame) : RoceDecoder.decodeIp(frame));
        if (result[0] instanceof FrameResult.Failed f) {
            assertThat(f.offset()).as(f.reason()).isBetween(0, frame.length);
            assertThat(f.reason()).isNotBlank();
        }
        viewAgrees(frame, ethernet, result[0]);
    }

    private static void viewAgrees(byte[] frame, boolean ethernet, FrameResult decoded) throws Exception {
        RoceFrameView view;
        try {
            view = ethernet
                    ? new RoceFrameView().wrapEthernet(frame, 0, frame.length)
                    : new RoceFrameView().wrapIp(frame, 0, frame.length);
        } catch (MalformedException e) {
            assertThat(decoded).isEqualTo(new FrameResult.Failed(e.offset(), e.reason()));
            if (ethernet) {
                assertThat(checkedFailure(frame)).as("the field-by-field checks' reason").isEqualTo(e.getMessage());
            }
            return;
        }
        RoceFrame records = view.toFrame();
        assertThat(decoded).isInstanceOf(FrameResult.Decoded.class);
        assertThat(((FrameResult.Decoded) decoded).frame()).isEqualTo(records);
        if (ethernet) {
            assertThat(new RoceFrameView().wrapEthernetChecked(frame, 0, frame.length).toFrame()).isEqualTo(records);
        }
        RoceFrameViewProperties.assertViewReadsAsTheRecords(view, records);
    }

    private static String checkedFailure(byte[] frame) {
        try {
            new RoceFrameView().wrapEthernetChecked(frame, 0, frame.length);
            return "accepted";
        } catch (MalformedException e) {
            return e.getMessage();
        }
    }
}
