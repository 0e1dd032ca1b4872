package io.cmdemux.ingress.capture;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.cmdemux.ingress.wire.FrameResult;
import io.cmdemux.netdev.MalformedException;
import io.cmdemux.netdev.PcapReader;
import io.cmdemux.netdev.testkit.DecoderContract;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Jazzer fuzz target for CaptureReader, what `cmdemux decode` and replay read: a pcap or pcapng file of
 * any content gives frames (each decoded, or Failed inside its record) until a clean end or a
 * MalformedException, in memory bounded by the reader's own limits, whatever the length fields claim.
 * The committed inputs are in CaptureFileJazzerTestInputs/ (see its README).
 */
class CaptureFileJazzerTest {
    /**
     * The reader's 64 KiB buffer and at most one record of PcapReader.MAX_RECORD read before the file
     * turns out short (the cap the reader puts on a length field), then the records of each frame.
     */
    private static final DecoderContract.Budget BUDGET =
            new DecoderContract.Budget((64 << 10) + PcapReader.MAX_RECORD + (64 << 10), 64);

    @FuzzTest
    void anyCaptureGivesFramesThenEndsOrIsMalformed(byte[] file) throws Exception {
        List<CapturedFrame> frames = new ArrayList<>();
        Exception e = DecoderContract.check(file.length, BUDGET, () -> readAll(file, frames), MalformedException.class);
        if (e != null) {
            assertThat(((MalformedException) e).offset()).as(e.getMessage()).isBetween(0, file.length);
        }
        for (int i = 0; i < frames.size(); i++) {
            CapturedFrame f = frames.get(i);
            assertThat(f.index()).isEqualTo(i + 1);
            assertThat(f.length()).isBetween(0, file.length);
            if (f.result() instanceof FrameResult.Failed failed) {
                assertThat(failed.offset()).as(failed.reason()).isBetween(0, f.length());
            }
        }
    }

    private static void readAll(byte[] file, List<CapturedFrame> frames) throws IOException, MalformedException {
        frames.clear(); // a second run of the decode, after class initialisation, starts over
        try (CaptureReader r = new CaptureReader(new ByteArrayInputStream(file))) {
            CapturedFrame f;
            while ((f = r.next()) != null) {
                frames.add(f);
                // Every record takes at least 12 bytes of the file: more
                // frames than that, and the reader is not advancing.
                if (frames.size() > file.length / 12) {
                    throw new AssertionError(frames.size() + " frames from a " + file.length + "-byte file");
                }
            }
        }
    }
}
