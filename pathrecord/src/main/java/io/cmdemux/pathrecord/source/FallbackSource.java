package io.cmdemux.pathrecord.source;

import io.cmdemux.pathrecord.PathQuery;
import io.cmdemux.pathrecord.PathRecord;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Source "auto": ask the first source; when it cannot be asked (no libibumad, no SM, a timeout),
 * ask the second. A definite "no such path" from the first is final: the second would only guess.
 */
public final class FallbackSource implements PathSource {
    private final PathSource first;
    private final PathSource second;

    public FallbackSource(PathSource first, PathSource second) {
        this.first = first;
        this.second = second;
    }

    @Override
    public String name() {
        return "auto";
    }

    @Override
    public CompletableFuture<PathRecord> resolve(PathQuery q) {
        return resolveSourced(q).thenApply(Sourced::record);
    }

    @Override
    public CompletableFuture<Sourced> resolveSourced(PathQuery q) {
        return first.resolveSourced(q).handle((r, e) -> {
            if (e == null) {
                return CompletableFuture.completedFuture(r);
            }
            Throwable c = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            if (c instanceof NoPathException) {
                return CompletableFuture.<Sourced>failedFuture(c);
            }
            return second.resolveSourced(q);
        }).thenCompose(x -> x);
    }

    @Override
    public void close() {
        first.close();
        second.close();
    }
}
