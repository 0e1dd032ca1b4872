package io.cmdemux.namespaces;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * A snapshot's namespaces after any run of {@link TopologySnapshot#with} against the LinkedHashMap that held
 * them before they were sharded (issue 22): the same namespaces in the same order (host first, a replaced one
 * in its place, a new one last, the host never removed), and {@link TopologySnapshot#changesSince} equal to
 * the difference of the two maps, between any two generations.
 */
class TopologySnapshotWithProperties {
    private static final NetnsId HOST = new NetnsId(4, 1000);

    /** One namespace added or replaced ({@code remove} false), or removed; inode 1000 is the host. */
    record Op(boolean remove, int inode) {}

    @Provide
    Arbitrary<List<List<Op>>> generations() {
        Arbitrary<Op> op = Combinators.combine(Arbitraries.of(false, false, true),
                Arbitraries.integers().between(1000, 1040)).as(Op::new);
        return op.list().ofMaxSize(12).list().ofMaxSize(10);
    }

    private static NetnsState state(int inode, int version) {
        NetnsId id = new NetnsId(4, inode);
        return new NetnsState(id, List.of("ns" + inode + "v" + version), id.equals(HOST), -1, new TreeMap<>(),
                List.of(), List.of(), Map.of());
    }

    @Property(tries = 300)
    void namespacesAndChangesAreThoseOfTheMapTheyReplaced(@ForAll("generations") List<List<Op>> generations) {
        List<NetnsState> first = List.of(state(1003, 0), state(1000, 0), state(1001, 0));
        TopologySnapshot snap = TopologySnapshot.of(1, HOST, first, List.of());
        Map<NetnsId, NetnsState> model = new LinkedHashMap<>();
        model.put(HOST, first.get(1)); // the host first, whatever the order it came in
        model.put(first.get(0).id(), first.get(0));
        model.put(first.get(2).id(), first.get(2));
        List<TopologySnapshot> snaps = new ArrayList<>(List.of(snap));
        List<Map<NetnsId, NetnsState>> models = new ArrayList<>(List.of(new LinkedHashMap<>(model)));
        int version = 0;
        for (List<Op> ops : generations) {
            List<NetnsState> changed = new ArrayList<>();
            List<NetnsId> removed = new ArrayList<>();
            Map<NetnsId, NetnsState> next = new LinkedHashMap<>(model);
            for (Op op : ops) {
                NetnsId id = new NetnsId(4, op.inode());
                if (op.remove()) {
                    removed.add(id);
                } else {
                    changed.add(state(op.inode(), ++version));
                }
            }
            // with() takes the removals first, then the changes in order, as the map did
            for (NetnsId id : removed) {
                if (!id.equals(HOST)) {
                    next.remove(id);
                }
            }
            for (NetnsState s : changed) {
                next.put(s.id(), s);
            }
            snap = snap.with(snap.generation() + 1, changed, removed);
            model = next;
            snaps.add(snap);
            models.add(new LinkedHashMap<>(next));
        }
        for (int a = 0; a < snaps.size(); a++) {
            TopologySnapshot s = snaps.get(a);
            assertThat(s.namespaces()).as("generation %d", a).containsExactlyElementsOf(models.get(a).values());
            assertThat(s.hostState()).isSameAs(models.get(a).get(HOST));
            for (int inode = 1000; inode <= 1040; inode++) {
                NetnsId id = new NetnsId(4, inode);
                assertThat(s.namespace(id)).isSameAs(models.get(a).get(id));
            }
            for (int b = a; b < snaps.size(); b++) {
                TopologySnapshot.Changes c = snaps.get(b).changesSince(s);
                Map<NetnsId, NetnsState> then = models.get(a);
                Map<NetnsId, NetnsState> now = models.get(b);
                Set<NetnsState> expectChanged = new HashSet<>();
                now.forEach((id, st) -> {
                    if (then.get(id) != st) {
                        expectChanged.add(st);
                    }
                });
                Set<NetnsId> expectRemoved = new HashSet<>(then.keySet());
                expectRemoved.removeAll(now.keySet());
                assertThat(c.changed()).as("%d to %d", a, b).containsExactlyInAnyOrderElementsOf(expectChanged);
                assertThat(c.removed()).as("%d to %d", a, b).containsExactlyInAnyOrderElementsOf(expectRemoved);
            }
        }
    }
}
