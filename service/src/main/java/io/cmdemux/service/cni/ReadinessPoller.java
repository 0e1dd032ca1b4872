package io.cmdemux.service.cni;

import io.cmdemux.gid.GidType;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs the checks until they pass, fail for good, or the wait is over. Only transient problems
 * (a GID not there yet, a view that lags) are waited for: roce_gid_mgmt adds GIDs from a
 * workqueue, and the daemon's tables follow netlink notifications, both a moment after the
 * interface plugin returns.
 */
final class ReadinessPoller {
    /** Kernel GID tables change without a topology event; look again at least this often. */
    private static final long MAX_NAP_MILLIS = 50;

    private ReadinessPoller() {}

    static ReadinessReport poll(RdmaState state, String netnsPath, List<ExpectedInterface> expected, GidType type, Duration wait)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        RdmaView view = state.current();
        while (true) {
            ReadinessReport r = Readiness.evaluate(view, state.read(netnsPath), netnsPath, expected, type);
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (!r.converging() || left <= 0) {
                return r;
            }
            view = state.awaitChange(view, Math.min(left, MAX_NAP_MILLIS));
        }
    }
}
