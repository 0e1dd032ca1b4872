package io.cmdemux.cni;

/**
 * What the plugin process hands back to the runtime: its exit code, its stdout (a result, a
 * VERSION answer, an error, or nothing) and its stderr (log lines, which runtimes keep).
 */
public record CniOutcome(int exitCode, byte[] stdout, String stderr) {
    public CniOutcome {
        stdout = stdout.clone();
        stderr = stderr == null ? "" : stderr;
    }

    @Override
    public byte[] stdout() {
        return stdout.clone();
    }
}
