package io.cmdemux.control.protocol;

import java.util.Map;

/**
 * One CNI plugin invocation handed to the daemon: the CNI_* environment and stdin, exactly as the
 * runtime gave them to the thin client.
 */
public record CniCall(Map<String, String> env, byte[] stdin) {
    public CniCall {
        env = Map.copyOf(env);
        stdin = stdin.clone();
    }

    @Override
    public byte[] stdin() {
        return stdin.clone();
    }
}
