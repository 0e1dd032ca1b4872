package io.cmdemux.dataplane.reply;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.cmdemux.gid.Gid;
import java.time.Duration;

/**
 * Keeps the daemon from being a reflector: per source address (as a GID, ::ffff:a.b.c.d for IPv4),
 * the bytes of REJs we send never exceed the bytes of REQs that source sent us, and at most
 * {@code perSecond} REJs a second go to one source (a token bucket).
 */
public final class RejLimiter {
    private final double perSecond;
    /** Its upkeep runs on the caller's thread, as the dispatcher's caches' does (see there). */
    private final Cache<Gid, Bucket> sources = Caffeine.newBuilder().expireAfterAccess(Duration.ofMinutes(5))
            .maximumSize(100_000)
            .executor(Runnable::run).build();

    private static final class Bucket {
        long bytesIn;
        long bytesOut;
        double tokens;
        long lastNanos;

        Bucket(double tokens, long now) {
            this.tokens = tokens;
            this.lastNanos = now;
        }
    }

    public RejLimiter(double perSecond) {
        this.perSecond = perSecond;
    }

    /** Counts a request's bytes toward what its source may be answered with. */
    public void requestIn(Gid source, int bytes) {
        Bucket b = sources.get(source, k -> new Bucket(perSecond, System.nanoTime()));
        synchronized (b) {
            b.bytesIn += bytes;
        }
    }

    /** Whether a reply of {@code bytes} may go to {@code source} now; takes the budget if so. */
    public boolean allowReply(Gid source, int bytes) {
        Bucket b = sources.getIfPresent(source);
        if (b == null) {
            return false;
        }
        long now = System.nanoTime();
        synchronized (b) {
            b.tokens = Math.min(perSecond, b.tokens + (now - b.lastNanos) / 1e9 * perSecond);
            b.lastNanos = now;
            if (b.tokens < 1 || b.bytesOut + bytes > b.bytesIn) {
                return false;
            }
            b.tokens -= 1;
            b.bytesOut += bytes;
            return true;
        }
    }
}
