package io.cmdemux.control.protocol;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The CLI message ⇄ records: a one-shot `cmdemux VERB ...` hands its arguments to the running daemon, which
 * runs the verb on its live state and answers with what the verb printed and its exit status.
 */
public final class CliMessages {
    /** More than any verb takes; argv is what a person or a script typed. */
    public static final int MAX_ARGS = 64;
    /** The verbs a daemon answers: they only read the live host, which the daemon already has. */
    public static final Set<String> VERBS = Set.of("topology", "gids", "gid-index", "explain");

    private CliMessages() {}

    /** CLI: one CLI_ARG record per argument, in order, UTF-8. */
    public static Frame cliRequest(int seq, List<String> args) {
        List<Record> rs = new ArrayList<>(args.size());
        for (String a : args) {
            rs.add(Record.mandatory(Wire.R_CLI_ARG, a.getBytes(StandardCharsets.UTF_8)));
        }
        return Frame.of(Wire.CLI, seq, rs);
    }

    /** The arguments: 1 to 64, each well-formed UTF-8 without NUL (no argv element can hold one). */
    public static List<String> cliArgs(Frame f) throws ProtocolException {
        Messages.requireKnown(f, Set.of(Wire.R_CLI_ARG));
        List<String> args = new ArrayList<>();
        for (Record r : f.records()) {
            if (args.size() == MAX_ARGS) {
                throw new ProtocolException(Wire.EINVAL, "more than " + MAX_ARGS + " CLI_ARG records");
            }
            String a;
            try {
                a = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(r.value())).toString();
            } catch (CharacterCodingException e) {
                throw new ProtocolException(Wire.EINVAL, "CLI_ARG " + args.size() + " is not UTF-8");
            }
            if (a.indexOf('\0') >= 0) {
                throw new ProtocolException(Wire.EINVAL, "CLI_ARG " + args.size() + " holds a NUL");
            }
            args.add(a);
        }
        if (args.isEmpty()) {
            throw new ProtocolException(Wire.EINVAL, "CLI without a CLI_ARG: which verb?");
        }
        return args;
    }

    /** The reply's records: CLI_RESULT (u8 exit code, 3 bytes reserved, stdout), and CLI_STDERR when there is any. */
    public static List<Record> cliReply(ProgramReply r) {
        return r.records(Wire.R_CLI_RESULT, Wire.R_CLI_STDERR);
    }

    public static ProgramReply cliReply(Frame f) throws ProtocolException {
        return ProgramReply.of(f, Wire.R_CLI_RESULT, "CLI_RESULT", Wire.R_CLI_STDERR);
    }
}
