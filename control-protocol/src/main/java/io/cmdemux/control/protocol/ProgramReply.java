package io.cmdemux.control.protocol;

/** What the thin client hands back to the runtime for a {@link CniCall}: exit code, stdout, stderr. */
public record CniReply(int exitCode, byte[] stdout, String stderr) {
    public CniReply {
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
}
