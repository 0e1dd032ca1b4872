package io.cmdemux.control.protocol;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What a thin client hands back as its own for a program the daemon ran in its place (the CNI plugin, a CLI
 * verb): exit code, stdout, stderr. On the wire a result record (u8 exit code, 3 bytes reserved, then stdout) and
 * a stderr record when there is any; CNI and CLI each have their own pair of record types.
 */
public record ProgramReply(int exitCode, byte[] stdout, String stderr) {
    static final int RESULT_HEADER = 4;

    public ProgramReply {
        if (exitCode < 0 || exitCode > 255) {
            throw new IllegalArgumentException("an exit code is 0-255, not " + exitCode);
        }
        stdout = stdout.clone();
        stderr = stderr == null ? "" : stderr;
    }

    @Override
    public byte[] stdout() {
        return stdout.clone();
    }

    List<Record> records(int resultType, int stderrType) {
        ByteBuffer b = ByteBuffer.allocate(RESULT_HEADER + stdout.length);
        b.put((byte) exitCode).put((byte) 0).putShort((short) 0).put(stdout);
        List<Record> rs = new ArrayList<>(2);
        rs.add(Record.mandatory(resultType, b.array()));
        if (!stderr.isEmpty()) {
            rs.add(Record.text(stderrType, stderr));
        }
        return rs;
    }

    static ProgramReply of(Frame f, int resultType, String name, int stderrType) throws ProtocolException {
        Record r = Messages.required(f, resultType, name);
        if (r.length() < RESULT_HEADER) {
            throw new ProtocolException(Wire.EBADMSG, name + " record of " + r.length() + " bytes (at least "
                    + RESULT_HEADER + ")");
        }
        byte[] v = r.value();
        return new ProgramReply(v[0] & 0xff, Arrays.copyOfRange(v, RESULT_HEADER, v.length),
                f.first(stderrType).map(Record::text).orElse(""));
    }
}
