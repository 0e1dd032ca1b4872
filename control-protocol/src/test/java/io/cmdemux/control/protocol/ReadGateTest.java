package io.cmdemux.control.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReadGateTest {

    @Test
    void aChannelIsReadOnlyOnceEveryReasonIsLiftedInWhateverOrder() {
        EmbeddedChannel ch = new EmbeddedChannel();
        ReadGate gate = ReadGate.of(ch);
        gate.hold(ReadGate.Reason.UNIDENTIFIED);
        gate.hold(ReadGate.Reason.UNWRITABLE);
        assertThat(ch.config().isAutoRead()).isFalse();
        gate.release(ReadGate.Reason.UNIDENTIFIED);
        assertThat(ch.config().isAutoRead()).as("still unwritable").isFalse();
        gate.release(ReadGate.Reason.OVER_BUDGET); // never held: lifts nothing
        assertThat(ch.config().isAutoRead()).isFalse();
        gate.release(ReadGate.Reason.UNWRITABLE);
        assertThat(ch.config().isAutoRead()).isTrue();
        assertThat(ReadGate.of(ch)).isSameAs(gate);
        ch.finishAndReleaseAll();
    }

    @Test
    void aFarewellReadsOnWhateverIsHeld() {
        EmbeddedChannel ch = new EmbeddedChannel();
        ReadGate gate = ReadGate.of(ch);
        gate.hold(ReadGate.Reason.UNWRITABLE);
        gate.hold(ReadGate.Reason.OVER_BUDGET);
        gate.open();
        assertThat(ch.config().isAutoRead()).isTrue();
        assertThat(gate.holds(ReadGate.Reason.UNWRITABLE)).isFalse();
        ch.finishAndReleaseAll();
    }

    /**
     * The decoder's budget and back-pressure at once: a burst handed on in turns ends with the decoder's own hold
     * lifted, and the peer, which still does not read its replies, stays unread until it does.
     */
    @Test
    void theDecoderEndingItsTurnsLeavesAPeerUnreadWhileItIsUnwritable() {
        List<Boolean> heldAtEachFrame = new ArrayList<>();
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.pipeline().addLast(new FrameDecoder(Wire.MAX_REQUEST_FRAME, 10_000, 2, () -> { }),
                new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        heldAtEachFrame.add(ReadGate.of(ctx.channel()).holds(ReadGate.Reason.OVER_BUDGET));
                    }
                });
        ReadGate gate = ReadGate.of(ch);
        gate.hold(ReadGate.Reason.UNWRITABLE);
        byte[] one = FrameCodec.encode(Frame.of(Wire.HELLO, 1, List.of()));
        byte[] burst = new byte[one.length * 5];
        for (int i = 0; i < 5; i++) {
            System.arraycopy(one, 0, burst, i * one.length, one.length);
        }
        ch.writeInbound(Unpooled.wrappedBuffer(burst)); // runs the queued turns too
        ch.runPendingTasks();
        // Two frames a turn: the first turn's two came with reads as they were; the budget held them off after.
        assertThat(heldAtEachFrame).containsExactly(false, false, true, true, true);
        assertThat(gate.holds(ReadGate.Reason.OVER_BUDGET)).isFalse();
        assertThat(ch.config().isAutoRead()).as("the peer still does not read its replies").isFalse();
        gate.release(ReadGate.Reason.UNWRITABLE);
        assertThat(ch.config().isAutoRead()).isTrue();
        ch.finishAndReleaseAll();
    }
}
