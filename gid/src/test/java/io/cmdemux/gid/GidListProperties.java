package io.cmdemux.gid;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * A soft port's table republished after each event (GidList.next, sharing the index with the list
 * before) answers every GID lookup as a list built from scratch over the same entries would.
 */
class GidListProperties {
    private static final int SLOTS = 24;

    /** Each table: per slot, a GID number (few, so the same GID sits in several slots) or -1 for empty. */
    @Provide
    Arbitrary<List<List<Integer>>> tables() {
        return Arbitraries.integers().between(-1, 6).list().ofSize(SLOTS).list().ofMinSize(1).ofMaxSize(8);
    }

    @Property(tries = 300)
    void anIncrementallyRepublishedListAnswersAsOneBuiltFromScratch(@ForAll("tables") List<List<Integer>> tables) {
        GidEntry[] published = new GidEntry[SLOTS];
        GidList list = null;
        for (List<Integer> table : tables) {
            List<GidEntry> removed = new ArrayList<>();
            List<GidEntry> added = new ArrayList<>();
            for (int i = 0; i < SLOTS; i++) {
                GidEntry now = table.get(i) < 0
                        ? null
                        : new GidEntry(i, gid(table.get(i)), GidType.ROCE_V2, null, OptionalInt.empty());
                if (!Objects.equals(now, published[i])) {
                    if (published[i] != null) {
                        removed.add(published[i]);
                    }
                    if (now != null) {
                        added.add(now);
                    }
                }
                published[i] = now;
            }
            GidEntry[] dense = java.util.Arrays.stream(published).filter(Objects::nonNull).toArray(GidEntry[]::new);
            list = list == null ? GidList.of(List.of(dense)) : GidList.next(list, dense, removed, added);
            GidList scratch = GidList.of(List.of(dense));
            assertThat(list).containsExactlyElementsOf(scratch);
            for (int g = 0; g <= 6; g++) {
                assertThat(list.withGid(gid(g))).as("GID %d in %s", g, table).isEqualTo(scratch.withGid(gid(g)));
                List<Integer> want = new ArrayList<>();
                for (int i = 0; i < SLOTS; i++) {
                    if (table.get(i) == g) {
                        want.add(i);
                    }
                }
                assertThat(list.withGid(gid(g)).stream().map(GidEntry::index).toList()).isEqualTo(want);
            }
        }
    }

    private static Gid gid(int n) {
        return Gid.parse("fe80::" + Integer.toHexString(n + 1));
    }
}
