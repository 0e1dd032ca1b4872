package io.cmdemux.control.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CniMessagesTest {
    @Test
    void aCniCallSurvivesTheWireWithEveryVariableAndStdinByteForByte() throws Exception {
        byte[] stdin = "{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"x\":\"\u00e9\"}".getBytes(StandardCharsets.UTF_8);
        Map<String, String> env = Map.of("CNI_COMMAND", "ADD", "CNI_ARGS", "IgnoreUnknown=1;A=b=c", "CNI_NETNS",
                "/run/netns/p");
        Frame f = FrameCodec.decode(FrameCodec.encode(CniMessages.cniRequest(7, env, stdin)), Wire.MAX_REQUEST_FRAME);

        CniCall call = CniMessages.cniCall(f);

        assertThat(f.type()).isEqualTo(Wire.CNI);
        assertThat(call.env()).isEqualTo(env);
        assertThat(call.stdin()).isEqualTo(stdin);
    }

    @Test
    void onlyCniVariablesEachOnceAreAccepted() {
        Frame other = Frame.of(Wire.CNI, 1,
                List.of(Record.mandatory(Wire.R_CNI_ENV, "LD_PRELOAD=/x.so".getBytes(StandardCharsets.UTF_8)),
                Record.mandatory(Wire.R_CNI_STDIN, new byte[0])));
        assertThatThrownBy(() -> CniMessages.cniCall(other))
                .isInstanceOfSatisfying(ProtocolException.class, e -> assertThat(e.status()).isEqualTo(Wire.EINVAL));
        Frame twice = Frame.of(Wire.CNI, 1,
                List.of(Record.mandatory(Wire.R_CNI_ENV, "CNI_COMMAND=ADD".getBytes(StandardCharsets.UTF_8)),
                Record.mandatory(Wire.R_CNI_ENV, "CNI_COMMAND=DEL".getBytes(StandardCharsets.UTF_8)),
                        Record.mandatory(Wire.R_CNI_STDIN, new byte[0])));
        assertThatThrownBy(() -> CniMessages.cniCall(twice))
                .isInstanceOfSatisfying(ProtocolException.class, e -> assertThat(e.status()).isEqualTo(Wire.EINVAL));
        Frame noStdin = Frame.of(Wire.CNI, 1,
                List.of(Record.mandatory(Wire.R_CNI_ENV, "CNI_COMMAND=ADD".getBytes(StandardCharsets.UTF_8))));
        assertThatThrownBy(() -> CniMessages.cniCall(noStdin))
                .isInstanceOfSatisfying(ProtocolException.class, e -> assertThat(e.status()).isEqualTo(Wire.EINVAL));
    }

    @Test
    void aReplyCarriesExitCodeStdoutAndStderr() throws Exception {
        Frame req = CniMessages.cniRequest(3, Map.of("CNI_COMMAND", "ADD"), new byte[0]);
        byte[] out = "{\"code\":11}".getBytes(StandardCharsets.UTF_8);
        Frame reply = FrameCodec.decode(FrameCodec.encode(Frame.reply(req, Wire.OK,
                CniMessages.cniReply(new ProgramReply(1, out, "cmdemux-cni: error 11\n")))),
                Wire.MAX_REPLY_FRAME);

        ProgramReply r = CniMessages.cniReply(reply);

        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.stdout()).isEqualTo(out);
        assertThat(r.stderr()).isEqualTo("cmdemux-cni: error 11\n");
        Frame shortResult = Frame.reply(req, Wire.OK, List.of(Record.mandatory(Wire.R_CNI_RESULT, new byte[2])));
        assertThatThrownBy(() -> CniMessages.cniReply(shortResult)).isInstanceOf(ProtocolException.class);
    }
}
