package io.cmdemux.pathrecord.policy;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.cmdemux.netdev.testkit.DecoderContract;
import java.nio.charset.StandardCharsets;

/**
 * Jazzer fuzz target for PolicyFile: any text (the input as UTF-8) parses to a policy or is refused with
 * the parser's IllegalArgumentException and a message, which the service prefixes with the file's name.
 * A subclass of it (NumberFormatException from a number it did not check) or any other exception is a
 * finding. The committed inputs are in PolicyFileJazzerTestInputs/ (see its README).
 */
class PolicyFileJazzerTest {
    /** Jackson's tree of the text, the rules built from it and the error message. */
    private static final DecoderContract.Budget BUDGET = new DecoderContract.Budget(64 << 10, 64);

    @FuzzTest
    void anyTextParsesOrIsRefusedWithAReason(byte[] input) throws Exception {
        String text = new String(input, StandardCharsets.UTF_8);
        Exception e = DecoderContract.check(
                input.length, BUDGET, () -> PolicyFile.parse(text, 1), IllegalArgumentException.class);
        if (e != null) {
            assertThat(e.getClass())
                    .as("the parser's own refusal, not %s", e)
                    .isEqualTo(IllegalArgumentException.class);
            assertThat(e.getMessage()).isNotBlank();
        }
    }
}
