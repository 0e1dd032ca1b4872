package io.cmdemux.dataplane.cm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * The session table against a plain model (a map from slot to keys): after any sequence of adds and
 * removes, through new chunks of slots and a full table, every key finds a live connection that has it, no key
 * finds one that does not, and the slots keep what was put in them. Keys are drawn from small ranges
 * so that hashes collide, keys repeat and deletions shift probe chains.
 */
class SessionTableProperties {

    private record Keys(int local, int remote, long guid, long trace, int flags) {}

    @Property(tries = 150)
    void lookupsAgreeWithAModel(@ForAll long seed, @ForAll @IntRange(min = 1, max = 9000) int maxSlots,
            @ForAll @IntRange(min = 1, max = 20000) int operations,
                    @ForAll @IntRange(min = 1, max = 4000) int keyRange) {
        Random random = new Random(seed);
        // Chunks of 64 slots, so that a run takes many of them; each must be announced once, in order.
        List<Integer> chunks = new ArrayList<>();
        SessionTable table = new SessionTable(maxSlots, 6, chunks::add);
        Map<Integer, Keys> model = new HashMap<>();
        List<Integer> live = new ArrayList<>();
        for (int i = 0; i < operations; i++) {
            if (live.isEmpty() || random.nextInt(100) < 60) {
                Keys k = new Keys(random.nextInt(keyRange), random.nextInt(keyRange), random.nextInt(3),
                        random.nextInt(keyRange), random.nextInt() & 0x7fffffff);
                int slot = table.add(k.local, k.remote, k.guid, k.trace, k.flags);
                if (model.size() == maxSlots) {
                    assertThat(slot).isEqualTo(SessionTable.NONE);
                } else {
                    assertThat(slot).isNotNegative().isLessThan(maxSlots);
                    assertThat(model.put(slot, k)).as("slot %d handed out twice", slot).isNull();
                    live.add(slot);
                }
            } else {
                int slot = live.remove(random.nextInt(live.size()));
                table.remove(slot);
                model.remove(slot);
                assertThat(table.live(slot)).isFalse();
            }
            if (i % 97 == 0 || i == operations - 1) {
                check(table, model, keyRange);
            }
        }
        assertThat(table.slots()).isEqualTo(chunks.size() * 64).isLessThan(maxSlots + 64);
        for (int c = 0; c < chunks.size(); c++) {
            assertThat(chunks.get(c)).isEqualTo(c);
        }
    }

    private static void check(SessionTable table, Map<Integer, Keys> model, int keyRange) {
        assertThat(table.size()).isEqualTo(model.size());
        for (Map.Entry<Integer, Keys> e : model.entrySet()) {
            int s = e.getKey();
            Keys k = e.getValue();
            assertThat(table.live(s)).isTrue();
            assertThat(table.localCommId(s)).isEqualTo(k.local);
            assertThat(table.remoteCommId(s)).isEqualTo(k.remote);
            assertThat(table.remoteCaGuid(s)).isEqualTo(k.guid);
            assertThat(table.traceId(s)).isEqualTo(k.trace);
            assertThat(table.flags(s)).isEqualTo(k.flags);
            assertThat(model.get(table.byLocal(k.local)).local).isEqualTo(k.local);
            Keys byRemote = model.get(table.byRemote(k.remote, k.guid));
            assertThat(byRemote.remote).isEqualTo(k.remote);
            assertThat(byRemote.guid).isEqualTo(k.guid);
            assertThat(model.get(table.byTrace(k.trace)).trace).isEqualTo(k.trace);
        }
        // Keys nobody has: a few inside the range (where they may be missing) and one outside it.
        for (int key : new int[] {0, keyRange / 2, keyRange - 1, keyRange + 5}) {
            boolean local = model.values().stream().anyMatch(k -> k.local == key);
            boolean remote = model.values().stream().anyMatch(k -> k.remote == key && k.guid == 1);
            boolean trace = model.values().stream().anyMatch(k -> k.trace == key);
            assertThat(table.byLocal(key) != SessionTable.NONE).isEqualTo(local);
            assertThat(table.byRemote(key, 1) != SessionTable.NONE).isEqualTo(remote);
            assertThat(table.byTrace(key) != SessionTable.NONE).isEqualTo(trace);
        }
    }

    @Test
    void aFreedSlotIsTakenAgainAndItsOldKeysAreGone() {
        SessionTable table = new SessionTable(2);
        int a = table.add(1, 10, 100, 1000, 0);
        int b = table.add(2, 20, 200, 2000, 0);
        assertThat(table.add(3, 30, 300, 3000, 0)).isEqualTo(SessionTable.NONE);
        table.remove(a);
        assertThat(table.byLocal(1)).isEqualTo(SessionTable.NONE);
        assertThat(table.byRemote(10, 100)).isEqualTo(SessionTable.NONE);
        assertThat(table.byTrace(1000)).isEqualTo(SessionTable.NONE);
        int c = table.add(3, 30, 300, 3000, 5);
        assertThat(c).isEqualTo(a);
        assertThat(table.byTrace(3000)).isEqualTo(c);
        assertThat(table.byLocal(2)).isEqualTo(b);
        assertThat(table.flags(c)).isEqualTo(5);
        table.remove(b);
        assertThatThrownBy(() -> table.remove(b)).isInstanceOf(IllegalStateException.class);
    }
}
