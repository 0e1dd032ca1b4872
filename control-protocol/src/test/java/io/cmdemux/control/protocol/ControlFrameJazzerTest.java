package io.cmdemux.control.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.cmdemux.netdev.testkit.DecoderContract;

/**
 * Jazzer fuzz target for what a client of the control socket sends (issue 20 §1): the input is one
 * frame as it arrives on the socket. It decodes, or is a ProtocolException with an errno; a frame that
 * decodes encodes back to the same bytes; and every reader the daemon applies to a frame's records
 * (listen specs, queries, CNI calls, acceptances, rejections, ...) returns or throws ProtocolException
 * or RequestRefused, whatever the frame's type. The committed inputs are in ControlFrameJazzerTestInputs/.
 */
class ControlFrameJazzerTest {
    private static final int MAX_FRAME = 1 << 20;
    private static final DecoderContract.Budget BUDGET = new DecoderContract.Budget(16 << 10, 16);

    @FuzzTest
    void anyFrameDecodesOrIsRefusedAndEveryReaderOfItKeepsItsContract(byte[] input) throws Exception {
        Frame[] frame = new Frame[1];
        Exception e = DecoderContract.check(input.length, BUDGET,
                () -> frame[0] = FrameCodec.decode(input, MAX_FRAME), ProtocolException.class);
        if (e != null) {
            assertThat(((ProtocolException) e).status()).isPositive();
            return;
        }
        Frame f = frame[0];
        assertThat(FrameCodec.encode(f)).isEqualTo(input);
        read(input, () -> CniMessages.cniCall(f));
        read(input, () -> CniMessages.cniReply(f));
        read(input, () -> CliMessages.cliArgs(f));
        read(input, () -> CliMessages.cliReply(f));
        read(input, () -> Messages.deliveredRequest(f));
        read(input, () -> Messages.rejection(f));
        read(input, () -> Messages.acceptance(f));
        read(input, () -> Messages.session(f));
        read(input, () -> Messages.disconnectPrivateData(f));
        read(input, () -> Messages.cmEvent(f));
        read(input, () -> Messages.consumer(f));
        for (Record r : f.records()) {
            read(input, () -> Messages.listenSpec(r));
            read(input, () -> Messages.listener(r));
            read(input, () -> Messages.listenerId(r));
            read(input, () -> Messages.queryKind(r));
            read(input, () -> Messages.decision(r));
            read(input, () -> MetaCodec.decode(r.value()));
            read(input, () -> QueryArgs.parse(r.value()));
        }
    }

    private static void read(byte[] input, DecoderContract.Decode reader) throws Exception {
        DecoderContract.check(input.length, BUDGET, reader, ProtocolException.class, RequestRefused.class);
    }
}
