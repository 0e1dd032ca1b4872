package io.cmdemux.namespaces;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
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

    /** Each version (the empty one first) beside the multimap model of it and the keys its edits named. */
    record Versions(List<ShardedIndex<Integer, Integer>> indexes, List<Map<Integer, List<Integer>>> models,
            List<Set<Integer>> touched) {}

    static Versions replay(List<List<Op>> generations) {
        Versions out = new Versions(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        ShardedIndex<Integer, Integer> index = ShardedIndex.empty();
        Map<Integer, List<Integer>> model = new HashMap<>();
        out.indexes().add(index);
        out.models().add(model);
        out.touched().add(Set.of());
        for (List<Op> ops : generations) {
            ShardedIndex.Editor<Integer, Integer> e = index.edit();
            Map<Integer, List<Integer>> next = new HashMap<>();
            model.forEach((k, v) -> next.put(k, new ArrayList<>(v)));
            Set<Integer> keys = new HashSet<>();
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
            out.indexes().add(index);
            out.models().add(model);
            out.touched().add(keys);
        }
        return out;
    }

    @Property(tries = 300)
    void everyVersionAnswersAsTheMultimapItReplacedAndStaysAsItWas(@ForAll("generations") List<List<Op>> generations) {
        Versions v = replay(generations);
        for (int i = 0; i < v.indexes().size(); i++) {
            for (int key = -600; key <= 600; key++) {
                assertThat(v.indexes().get(i).get(key))
                        .as("version %d, key %d", i, key)
                        .isEqualTo(v.models().get(i).getOrDefault(key, List.of()));
            }
        }
    }

    /**
     * Between any two versions, keysChangedSince finds every key whose lists differ (the oracle is the
     * multimap), and names no key that no edit between them touched; forEach visits exactly the model.
     */
    @Property(tries = 300)
    void theChangedKeysAreThoseWhoseListsDifferOrThatWereEdited(@ForAll("generations") List<List<Op>> generations) {
        Versions v = replay(generations);
        for (int a = 0; a < v.indexes().size(); a++) {
            Map<Integer, List<Integer>> seen = new HashMap<>();
            v.indexes().get(a).forEach(seen::put);
            assertThat(seen).as("forEach of version %d", a).isEqualTo(v.models().get(a));
            for (int b = a; b < v.indexes().size(); b++) {
                Set<Integer> changed = v.indexes().get(b).keysChangedSince(v.indexes().get(a));
                Set<Integer> edited = new HashSet<>();
                for (int i = a + 1; i <= b; i++) {
                    edited.addAll(v.touched().get(i));
                }
                for (int key = -600; key <= 600; key++) {
                    boolean differs = !v.models().get(a).getOrDefault(key, List.of())
                            .equals(v.models().get(b).getOrDefault(key, List.of()));
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
