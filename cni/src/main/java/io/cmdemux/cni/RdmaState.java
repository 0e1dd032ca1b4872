package io.cmdemux.cni;

import java.io.IOException;

/**
 * Where the readiness checks get the host's state: the daemon's live view, or a one-shot read
 * when the plugin runs without the daemon.
 */
public interface RdmaState extends AutoCloseable {
    RdmaView current() throws IOException;

    /**
     * A newer view than {@code seen}, or the same one when nothing changed within {@code maxWaitMillis}.
     * Never waits longer than that: GIDs of kernel devices change without a topology event.
     */
    RdmaView awaitChange(RdmaView seen, long maxWaitMillis) throws IOException, InterruptedException;

    /** The pod's namespace as the kernel has it now. */
    FreshNetns read(String netnsPath) throws IOException;

    /** Releases what a one-shot state opened; a live state shares the daemon's and has nothing to release. */
    @Override
    default void close() {}
}
