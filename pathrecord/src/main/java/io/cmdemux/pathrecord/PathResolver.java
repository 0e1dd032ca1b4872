package io.cmdemux.pathrecord;

import io.cmdemux.ingress.resolve.HostState;
import io.cmdemux.pathrecord.policy.Action;
import io.cmdemux.pathrecord.policy.Origin;
import io.cmdemux.pathrecord.policy.Policy;
import io.cmdemux.pathrecord.policy.Rule;
import io.cmdemux.pathrecord.source.NoPathException;
import io.cmdemux.pathrecord.source.PathSource;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * From a query to an {@link Answer}: infer the origin (namespace and netdev) from the host state,
 * let the policy decide, and ask the source, through the cache. The host state and the policy are
 * read at each call, so a swap (new topology, policy reload) applies to the next query.
 */
public final class PathResolver {
    private final Supplier<HostState> state;
    private final AtomicReference<Policy> policy;
    private final PathSource source;
    private final PathCache cache;
    private final AtomicLong sourceQueries = new AtomicLong();

    public PathResolver(Supplier<HostState> state, Policy policy, PathSource source, PathCache cache) {
        this.state = state;
        this.policy = new AtomicReference<>(policy);
        this.source = source;
        this.cache = cache;
    }

    public Policy policy() {
        return policy.get();
    }

    /** Installs a reloaded policy; its generation must be higher. Cached answers of the old one are dropped. */
    public void setPolicy(Policy p) {
        policy.set(p);
        cache.invalidateAll();
    }

    public PathCache cache() {
        return cache;
    }

    public PathSource source() {
        return source;
    }

    /** How many questions went to the source (misses, plus their alternate and one-way paths). */
    public long sourceQueries() {
        return sourceQueries.get();
    }

    /** The answer and whether it came from the cache. */
    public record Result(Answer answer, boolean cached) {
        /** "cache", "sa" or "static". */
        public String source() {
            return cached ? "cache" : answer.source();
        }
    }

    public CompletableFuture<Result> resolve(PathQuery q) {
        Policy p = policy.get();
        PathCache.Key key = PathCache.Key.of(q, p.generation());
        PathCache.Lookup l = cache.get(key, k -> compute(q, p));
        CompletableFuture<Answer> f = l.answer();
        if (!l.hit()) {
            // Only answers with records, or a rule's verdict, are
            // kept: a missing path may appear and an SA may come back.
            f.thenAccept(a -> {
                if (a.kind() == Answer.Kind.NO_PATH || a.kind() == Answer.Kind.ERROR) {
                    cache.forget(key, f);
                }
            });
        }
        return f.thenApply(a -> new Result(a, l.hit()));
    }

    private CompletableFuture<Answer> compute(PathQuery q, Policy p) {
        Origin origin = Origin.infer(state.get(), q);
        Rule rule = p.evaluate(q, origin);
        Action act = rule == null ? Action.none() : rule.action();
        if (act.deny()) {
            return CompletableFuture.completedFuture(
                    Answer.without(Answer.Kind.DENY, rule, origin, source.name(), "denied by rule " + rule.name()));
        }
        if (act.fail()) {
            return CompletableFuture.completedFuture(
                    Answer.without(Answer.Kind.FAIL, rule, origin, source.name(), "failed by rule " + rule.name()));
        }
        PathQuery asked = act.pkey() == null ? q : q.withPkey(act.pkey());
        sourceQueries.incrementAndGet();
        return source.resolveSourced(asked)
                .handle((primary, e) -> {
                    if (e != null) {
                        Throwable c = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
                        Answer.Kind k = c instanceof NoPathException ? Answer.Kind.NO_PATH : Answer.Kind.ERROR;
                        return CompletableFuture.completedFuture(
                                Answer.without(k, rule, origin, source.name(), c.getMessage()));
                    }
                    return extras(asked, primary.record(), act)
                            .thenApply(paths -> Answer.paths(paths.map(act::apply), rule, origin, primary.source()));
                })
                .thenCompose(x -> x);
    }

    /** The one-way and alternate paths a rule asks for; a missing one is simply left out. */
    private CompletableFuture<Paths> extras(PathQuery q, PathRecord primary, Action act) {
        Paths base = Paths.of(primary);
        if (!act.directional() && !act.alternate()) {
            return CompletableFuture.completedFuture(base);
        }
        // An alternate path goes to other path bits of the destination: the SA must match DGID and DLID both, so a
        // DLID that belongs to another port (LMC 0) gives no record rather than a wrong one.
        int altDlid = primary.dlid() + 1;
        PathQuery oneWay = q.withReversible(false);
        CompletableFuture<PathRecord> out = act.directional() ? optional(oneWay) : none();
        CompletableFuture<PathRecord> in = act.directional() ? optional(q.reversed()) : none();
        CompletableFuture<PathRecord> alt = act.alternate() ? optional(q.withDlid(altDlid)) : none();
        CompletableFuture<PathRecord> altOut =
                act.alternate() && act.directional() ? optional(oneWay.withDlid(altDlid)) : none();
        CompletableFuture<PathRecord> altIn =
                act.alternate() && act.directional() ? optional(q.reversed().withDlid(primary.slid() + 1)) : none();
        return CompletableFuture.allOf(out, in, alt, altOut, altIn)
                .thenApply(v -> base.withDirectional(out.join(), in.join())
                        .withAlternates(alt.join(), altOut.join(), altIn.join()));
    }

    private CompletableFuture<PathRecord> ask(PathQuery q) {
        sourceQueries.incrementAndGet();
        return source.resolve(q);
    }

    private CompletableFuture<PathRecord> optional(PathQuery q) {
        return ask(q).exceptionally(e -> null);
    }

    private static CompletableFuture<PathRecord> none() {
        return CompletableFuture.completedFuture(null);
    }
}
