package io.cmdemux.control.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * The frame decoder against random and hostile bytes: it returns frames, a BadFrame or a
 * Violation, never anything else, never throws, and never waits for bytes a header promised
 * beyond the limit.
 */
class FrameCodecProperties {

    @Provide
    Arbitrary<Record> records() {
        return Combinators.combine(Arbitraries.integers().between(0, 0xffff), Arbitraries.integers().between(0, 0xffff),
                Arbitraries.bytes().array(byte[].class).ofMaxSize(300)).as(Record::new);
    }

    @Provide
    Arbitrary<Frame> frames() {
        return Combinators.combine(Arbitraries.integers().between(0, 255), Arbitraries.integers().between(0, 0xffff),
                Arbitraries.integers().between(0, 0xffff), Arbitraries.integers(), records().list().ofMaxSize(6))
                .as((type, status, flags, seq, rs) -> new Frame(Wire.VERSION, type, status,
                        rs.isEmpty() ? Wire.FORMAT_NONE : Wire.FORMAT_RECORDS, flags, seq, rs));
    }

    @Provide
    Arbitrary<List<Frame>> frameLists() {
        return frames().list().ofMaxSize(5);
    }

    @Property
    void encodeThenDecodeGivesTheSameFrame(@ForAll("frames") Frame f) throws ProtocolException {
        assertThat(FrameCodec.decode(FrameCodec.encode(f), Wire.MAX_REPLY_FRAME)).isEqualTo(f);
    }

    @Property
    void arbitraryBytesDecodeOrFailWithAProtocolExceptionOnly(@ForAll @Size(max = 200) byte[] bytes) {
        try {
            Frame f = FrameCodec.decode(bytes, Wire.MAX_REQUEST_FRAME);
            assertThat(FrameCodec.encode(f)).isEqualTo(bytes);
        } catch (ProtocolException e) {
            assertThat(e.status()).isIn(Wire.EBADMSG, Wire.EMSGSIZE, Wire.EPROTONOSUPPORT, Wire.EOPNOTSUPP);
        }
    }

    @Property
    void everyTruncationOfAValidFrameIsRefused(@ForAll("frames") Frame f,
            @ForAll @IntRange(min = 1, max = 400) int cut) {
        byte[] full = FrameCodec.encode(f);
        int keep = Math.max(0, full.length - cut);
        assertThatThrownBy(() -> FrameCodec.decode(Arrays.copyOf(full, keep), Wire.MAX_REPLY_FRAME))
                .isInstanceOf(ProtocolException.class);
    }

    @Property
    void aCorruptedRecordLengthIsBadMessageNotACrash(@ForAll("frames") Frame f, @ForAll int badLength) {
        if (f.records().isEmpty()) {
            return;
        }
        byte[] bytes = FrameCodec.encode(f);
        ByteBuffer.wrap(bytes).putInt(Wire.HEADER_SIZE + 4, badLength);
        try {
            FrameCodec.decode(bytes, Wire.MAX_REPLY_FRAME);
        } catch (ProtocolException e) {
            assertThat(e.status()).isEqualTo(Wire.EBADMSG);
            assertThat(e.offset()).isGreaterThanOrEqualTo(Wire.HEADER_SIZE);
        }
    }

    /** The stream decoder: random frames, split into random chunks, mixed with garbage, never throw. */
    @Property(tries = 300)
    void theStreamDecoderSurvivesAnyChunkingAndGarbage(@ForAll("frameLists") List<Frame> frames,
            @ForAll @Size(max = 64) byte[] garbage, @ForAll @IntRange(min = 1, max = 97) int chunk) {
        ByteBuffer all = ByteBuffer.allocate(frames.stream().mapToInt(FrameCodec::encodedLength).sum()
                + garbage.length);
        for (Frame f : frames) {
            all.put(FrameCodec.encode(f));
        }
        all.put(garbage);
        byte[] bytes = all.array();
        EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(Wire.MAX_REQUEST_FRAME, 10_000));
        for (int i = 0; i < bytes.length; i += chunk) {
            ch.writeInbound(Unpooled.wrappedBuffer(bytes, i, Math.min(chunk, bytes.length - i)));
        }
        List<Object> out = new ArrayList<>();
        Object o;
        while ((o = ch.readInbound()) != null) {
            out.add(o);
        }
        // Every well-formed frame before the garbage comes out intact and in order.
        int frameCount = 0;
        for (Object x : out) {
            if (x instanceof Frame) {
                assertThat(x).isEqualTo(frames.get(frameCount++));
            } else {
                assertThat(x).isInstanceOfAny(FrameDecoder.Violation.class, FrameDecoder.BadFrame.class);
            }
        }
        assertThat(frameCount).isLessThanOrEqualTo(frames.size());
        if (garbage.length == 0) {
            assertThat(frameCount).isEqualTo(frames.size());
        }
        ch.finishAndReleaseAll();
    }

    @Property
    void aHugeLengthBreaksTheStreamAtOnceWithoutBuffering(@ForAll @IntRange(min = Wire.MAX_REQUEST_FRAME
            + 1) int length) {
        ByteBuffer b = ByteBuffer.allocate(Wire.HEADER_SIZE);
        b.put((byte) Wire.VERSION).put((byte) Wire.LISTEN).putShort((short) 0).putShort((short) 1).putShort((short) 0)
                .putInt(length).putInt(1);
        EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(Wire.MAX_REQUEST_FRAME, 10_000));
        ch.writeInbound(Unpooled.wrappedBuffer(b.array()));
        Object o = ch.readInbound();
        assertThat(o).isInstanceOf(FrameDecoder.Violation.class);
        assertThat(((FrameDecoder.Violation) o).error().status()).isEqualTo(Wire.EMSGSIZE);
        ch.finishAndReleaseAll();
    }

    @Property
    void anotherVersionBreaksTheStream(@ForAll @IntRange(min = 0, max = 255) int version) {
        if (version == Wire.VERSION) {
            return;
        }
        byte[] bytes = FrameCodec.encode(Frame.of(Wire.HELLO, 1, List.of()));
        bytes[0] = (byte) version;
        EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(Wire.MAX_REQUEST_FRAME, 10_000));
        ch.writeInbound(Unpooled.wrappedBuffer(bytes));
        Object o = ch.readInbound();
        assertThat(o).isInstanceOf(FrameDecoder.Violation.class);
        assertThat(((FrameDecoder.Violation) o).error().status()).isEqualTo(Wire.EPROTONOSUPPORT);
        ch.finishAndReleaseAll();
    }
}
