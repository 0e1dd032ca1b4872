package io.cmdemux.pathrecord.source;

import io.cmdemux.pathrecord.PathQuery;
import io.cmdemux.pathrecord.PathRecord;
import java.util.concurrent.CompletableFuture;

/**
 * Where path records come from: the SA (through libibumad) or a static file. Answers complete the
 * future with one record, or exceptionally with {@link NoPathException} (the source has no such
 * path) or another IOException (the source could not be asked).
 */
public interface PathSource extends AutoCloseable {
    /** "sa" or "static": what the CLI and the JSON call this source. */
    String name();

    CompletableFuture<PathRecord> resolve(PathQuery query);

    /** A record and the name of the source that gave it. */
    record Sourced(PathRecord record, String source) {}

    /** Like {@link #resolve}, saying which source answered (a fallback source has two). */
    default CompletableFuture<Sourced> resolveSourced(PathQuery query) {
        return resolve(query).thenApply(r -> new Sourced(r, name()));
    }

    @Override
    default void close() {}
}
