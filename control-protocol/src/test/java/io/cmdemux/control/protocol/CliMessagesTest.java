package io.cmdemux.control.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class CliMessagesTest {
    @Test
    void argumentsSurviveTheWireInOrderWithEmptyAndNonAsciiOnes() throws Exception {
        List<String> args = List.of("explain", "--dst", "10.0.0.2:7471", "", "--namespace", "pod-\u00e9");
        Frame f = FrameCodec.decode(FrameCodec.encode(CliMessages.cliRequest(5, args)), Wire.MAX_REQUEST_FRAME);

        assertThat(f.type()).isEqualTo(Wire.CLI);
        assertThat(CliMessages.cliArgs(f)).containsExactlyElementsOf(args);
    }

    @Test
    void noArgumentsTooManyMalformedUtf8OrANulAreEinval() {
        List<Frame> bad = new ArrayList<>();
        bad.add(Frame.of(Wire.CLI, 1, List.of()));
        bad.add(CliMessages.cliRequest(1, Collections.nCopies(CliMessages.MAX_ARGS + 1, "x")));
        bad.add(Frame.of(Wire.CLI, 1, List.of(Record.mandatory(Wire.R_CLI_ARG, new byte[] {'a', (byte) 0xc3}))));
        bad.add(CliMessages.cliRequest(1, List.of("topology", "a\0b")));
        for (Frame f : bad) {
            assertThatThrownBy(() -> CliMessages.cliArgs(f)).as("%s", f).isInstanceOfSatisfying(
                    ProtocolException.class, e -> assertThat(e.status()).isEqualTo(Wire.EINVAL));
        }
        assertThat(CliMessages.MAX_ARGS).isEqualTo(64);
    }

    @Test
    void anUnknownMandatoryRecordIsRefused() {
        Frame f = Frame.of(Wire.CLI, 1, List.of(
                Record.mandatory(Wire.R_CLI_ARG, "gids".getBytes(StandardCharsets.UTF_8)),
                Record.mandatory(Wire.R_CNI_STDIN, new byte[0])));
        assertThatThrownBy(() -> CliMessages.cliArgs(f)).isInstanceOf(ProtocolException.class);
    }

    @Test
    void aReplyCarriesExitCodeStdoutAndStderrInItsOwnRecords() throws Exception {
        Frame req = CliMessages.cliRequest(3, List.of("gids"));
        byte[] out = "soft0 1 0 fe80::1\n".getBytes(StandardCharsets.UTF_8);
        Frame reply = FrameCodec.decode(FrameCodec.encode(Frame.reply(req, Wire.OK,
                CliMessages.cliReply(new ProgramReply(4, out, "cmdemux: no such device\n")))), Wire.MAX_REPLY_FRAME);

        ProgramReply r = CliMessages.cliReply(reply);

        assertThat(r.exitCode()).isEqualTo(4);
        assertThat(r.stdout()).isEqualTo(out);
        assertThat(r.stderr()).isEqualTo("cmdemux: no such device\n");
        assertThat(reply.first(Wire.R_CLI_RESULT)).isPresent();
        assertThat(reply.first(Wire.R_CNI_RESULT)).isEmpty();
        Frame cniShaped = Frame.reply(req, Wire.OK, CniMessages.cniReply(new ProgramReply(0, out, "")));
        assertThatThrownBy(() -> CliMessages.cliReply(cniShaped)).isInstanceOf(ProtocolException.class);
    }
}
