package io.cmdemux.namespaces;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The sharded index against the plain multimap it replaced (a HashMap of lists, edited in place
 * on a copy): same lists in the same order after any run of edits, and every earlier version
 * unchanged by the edits of the later ones.
 */
class ShardedIndexProperties {
    record Op(boolean add, int key, int value) {}

    @Provide
    Arbitrary<List<List<Op>>> generations() {
        // Few keys and values, so that removals hit, lists grow past one and shards are shared.
        Arbitrary<Op> op = Combinators.combine(
                        Arbitraries.of(true, true, false),
                        Arbitraries.integers().between(-600, 600),
                        Arbitraries.integers().between(0, 3))
                .as(Op::new);
        return op.list().ofMaxSize(40).list().ofMaxSize(8);
    }

    @Property(tries = 300)
    void everyVersionAnswersAsTheMultimapItReplacedAndStaysAsItWas(@ForAll("generations") List<List<Op>> generations) {
        List<ShardedIndex<Integer, Integer>> versions = new ArrayList<>();
        List<Map<Integer, List<Integer>>> models = new ArrayList<>();
        ShardedIndex<Integer, Integer> index = ShardedIndex.empty();
        Map<Integer, List<Integer>> model = new HashMap<>();
        for (List<Op> ops : generations) {
            ShardedIndex.Editor<Integer, Integer> e = index.edit();
            Map<Integer, List<Integer>> next = new HashMap<>();
            model.forEach((k, v) -> next.put(k, new ArrayList<>(v)));
            for (Op op : ops) {
                if (op.add()) {
                    e.add(op.key(), op.value());
                    next.computeIfAbsent(op.key(), k -> new ArrayList<>()).add(op.value());
                } else {
                    e.remove(op.key(), op.value());
                    List<Integer> l = next.get(op.key());
                    if (l != null) {
                        l.remove(Integer.valueOf(op.value()));
                        if (l.isEmpty()) {
                            next.remove(op.key());
                        }
                    }
                }
            }
            index = e.done();
            model = next;
            versions.add(index);
            models.add(model);
        }
        for (int v = 0; v < versions.size(); v++) {
            for (int key = -600; key <= 600; key++) {
                assertThat(versions.get(v).get(key))
                        .as("version %d, key %d", v, key)
                        .isEqualTo(models.get(v).getOrDefault(key, List.of()));
            }
        }
    }

    /**
     * Between any two versions, keysChangedSince finds every key whose lists differ (the oracle is the
     * multimap), and names no key that no edit between them touched; forEach visits exactly the model.
     */
    @Property(tries = 300)
    void theChangedKeysAreThoseWhoseListsDifferOrThatWereEdited(@ForAll("generations") List<List<Op>> generations) {
        List<ShardedIndex<Integer, Integer>> versions = new ArrayList<>();
        List<Map<Integer, List<Integer>>> models = new ArrayList<>();
        List<java.util.Set<Integer>> touched = new ArrayList<>();
        ShardedIndex<Integer, Integer> index = ShardedIndex.empty();
        Map<Integer, List<Integer>> model = new HashMap<>();
        versions.add(index);
        models.add(model);
        touched.add(java.util.Set.of());
        for (List<Op> ops : generations) {
            ShardedIndex.Editor<Integer, Integer> e = index.edit();
            Map<Integer, List<Integer>> next = new HashMap<>();
            model.forEach((k, v) -> next.put(k, new ArrayList<>(v)));
            java.util.Set<Integer> keys = new java.util.HashSet<>();
            for (Op op : ops) {
                keys.add(op.key());
                if (op.add()) {
                    e.add(op.key(), op.value());
                    next.computeIfAbsent(op.key(), k -> new ArrayList<>()).add(op.value());
                } else {
                    e.remove(op.key(), op.value());
                    List<Integer> l = next.get(op.key());
                    if (l != null) {
                        l.remove(Integer.valueOf(op.value()));
                        if (l.isEmpty()) {
                            next.remove(op.key());
                        }
                    }
                }
            }
            index = e.done();
            model = next;
            versions.add(index);
            models.add(model);
            touched.add(keys);
        }
        for (int a = 0; a < versions.size(); a++) {
            Map<Integer, List<Integer>> seen = new HashMap<>();
            versions.get(a).forEach(seen::put);
            assertThat(seen).as("forEach of version %d", a).isEqualTo(models.get(a));
            for (int b = a; b < versions.size(); b++) {
                java.util.Set<Integer> changed = versions.get(b).keysChangedSince(versions.get(a));
                java.util.Set<Integer> edited = new java.util.HashSet<>();
                for (int v = a + 1; v <= b; v++) {
                    edited.addAll(touched.get(v));
                }
                for (int key = -600; key <= 600; key++) {
                    boolean differs = !models.get(a).getOrDefault(key, List.of())
                            .equals(models.get(b).getOrDefault(key, List.of()));
                    if (differs) {
                        assertThat(changed).as("versions %d to %d, key %d", a, b, key).contains(key);
                    }
                }
                assertThat(edited).as("versions %d to %d", a, b).containsAll(changed);
            }
        }
    }

    @Example
    void listsCannotBeChangedThroughWhatGetReturns() {
        ShardedIndex.Editor<Integer, Integer> e = ShardedIndex.<Integer, Integer>empty().edit();
        e.add(1, 1);
        ShardedIndex<Integer, Integer> index = e.done();
        assertThatThrownBy(() -> index.get(1).add(2)).isInstanceOf(UnsupportedOperationException.class);
        assertThat(ShardedIndex.<Integer, Integer>empty().get(1)).isEmpty();
    }
}
