package io.cmdemux.pathrecord.source;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.cmdemux.netdev.MalformedException;
import io.cmdemux.netdev.testkit.DecoderContract;
import java.nio.charset.StandardCharsets;

/**
 * Jazzer fuzz target for StaticPathFile, the reader of OpenSM's dump_pr path records: any text (the
 * input as UTF-8) parses or is a MalformedException at the start of a line of it. The committed inputs
 * are in StaticPathFileJazzerTestInputs/ (see its README).
 */
class StaticPathFileJazzerTest {
    /** The text split into lines, a section and an entry per line. */
    // 256 per byte: under fuzzing, Jazzer's hooks on the parser's String and regex calls allocate too, and
    // the real 934-byte OpenSM dump of the seeds measured 169 bytes per input byte there (a "finding" of
    // the 2026-12-02 campaign after 3 executions), where `mvn verify` keeps within 64; an allocation driven
    // by a number in the text, which this guards against, is orders of magnitude beyond either. 1 KiB since
    // the campaign of 2026-12-03: a 198-byte input of eleven 15-byte path lines, an entry each, allocated
    // 68,136 bytes under Jazzer (344 per byte), well within the budget without its hooks.
    private static final DecoderContract.Budget BUDGET = new DecoderContract.Budget(16 << 10, 1024);

    @FuzzTest
    void anyTextParsesOrIsMalformedAtALine(byte[] input) throws Exception {
        String text = new String(input, StandardCharsets.UTF_8);
        Exception e =
                DecoderContract.check(input.length, BUDGET, () -> StaticPathFile.parse(text), MalformedException.class);
        if (e != null) {
            int offset = ((MalformedException) e).offset();
            byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
            assertThat(offset).as(e.getMessage()).isBetween(0, utf8.length);
            assertThat(offset == 0 || utf8[offset - 1] == '\n')
                    .as("offset %d of \"%s\" starts a line", offset, e.getMessage())
                    .isTrue();
        }
    }
}
