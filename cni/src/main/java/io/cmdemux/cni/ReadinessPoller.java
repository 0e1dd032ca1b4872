package io.cmdemux.cni;

import io.cmdemux.gid.GidType;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the checks until they pass, fail for good, or the wait is over. Only transient problems
 * (a GID not there yet, a view that lags) are waited for: roce_gid_mgmt adds GIDs from a
 * workqueue, and the daemon's tables follow netlink notifications, both a moment after the
 * interface plugin returns.
 */
final class ReadinessPoller {
    /** Kernel GID tables change without a topology event; look again at least this often. */
    private static final long MAX_NAP_MILLIS = 50;
    private static final Logger log = LoggerFactory.getLogger(ReadinessPoller.class);

    private ReadinessPoller() {}

    static ReadinessReport poll(RdmaState state, String netnsPath, List<ExpectedInterface> expected, GidType type,
            Duration wait)
            throws IOException, InterruptedException {
        long start = System.nanoTime();
        long deadline = start + wait.toNanos();
        RdmaView view = state.current();
        for (int looks = 1;; looks++) {
            long t0 = System.nanoTime();
            FreshNetns fresh = state.read(netnsPath);
            long t1 = System.nanoTime();
            ReadinessReport r = Readiness.evaluate(view, fresh, netnsPath, expected, type);
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (!r.converging() || left <= 0) {
                log.debug("{}: {} after {} look(s) in {} ms (last kernel read {} us, generation {})", netnsPath,
                        r.ok() ? "ready" : "not ready", looks, (System.nanoTime() - start) / 1_000_000,
                        (t1 - t0) / 1000, view.generation());
                return r;
            }
            view = state.awaitChange(view, Math.min(left, MAX_NAP_MILLIS));
        }
    }
}
