package io.cmdemux.gid;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsId;
import java.util.List;
import org.junit.jupiter.api.Test;

/** cache.c's slot rules, each stated from the kernel source (find_gid, __ib_cache_gid_add, del_gid). */
class GidCacheTest {
    private static final NetnsId NS = new NetnsId(4, 1);
    private static final LinkRef PORT = new LinkRef(NS, 2);
    private static final LinkRef MV1 = new LinkRef(NS, 10);
    private static final LinkRef MV2 = new LinkRef(NS, 11);
    private static final Gid DEF = Gid.parse("fe80::5054:ff:fe12:3456");
    private static final Gid A = Gid.parse("10.0.0.1");
    private static final Gid B = Gid.parse("10.0.0.2");
    private static final Gid C = Gid.parse("10.0.0.3");

    @Test
    void defaultGidsTakeTheReservedLowIndicesAndIpGidsNeverDo() {
        GidCache c = new GidCache(8, 2);
        assertThat(c.add(A, GidType.ROCE_V2, MV1)).hasValue(2);
        assertThat(c.addDefault(DEF, GidType.ROCE_V1, PORT)).hasValue(0);
        assertThat(c.addDefault(DEF, GidType.ROCE_V2, PORT)).hasValue(1);
    }

    @Test
    void aDeletedSlotIsReusedLowestFirst() {
        GidCache c = new GidCache(8, 1);
        c.add(A, GidType.ROCE_V2, MV1); // 1
        c.add(B, GidType.ROCE_V2, MV2); // 2
        c.add(C, GidType.ROCE_V2, MV2); // 3
        assertThat(c.deleteAllOf(MV2)).isEqualTo(2);
        c.delete(A, GidType.ROCE_V2, MV1);
        assertThat(c.add(C, GidType.ROCE_V2, MV1)).hasValue(1);
        assertThat(c.add(B, GidType.ROCE_V2, MV1)).hasValue(2);
    }

    @Test
    void theSameGidOnTwoNdevsIsTwoEntriesAndOnOneNdevOnlyOne() {
        GidCache c = new GidCache(8, 1);
        assertThat(c.add(A, GidType.ROCE_V2, MV1)).hasValue(1);
        assertThat(c.add(A, GidType.ROCE_V2, MV2)).hasValue(2);
        assertThat(c.add(A, GidType.ROCE_V2, MV1)).hasValue(1);
        assertThat(c.used()).isEqualTo(2);
    }

    @Test
    void thePortsOwnEui64LinkLocalAddressIsTheDefaultEntryNotASecondOne() {
        // ib_cache_gid_add's mask has no GID_ATTR_FIND_MASK_DEFAULT: the default slot matches.
        GidCache c = new GidCache(8, 1);
        c.addDefault(DEF, GidType.ROCE_V2, PORT);
        assertThat(c.add(DEF, GidType.ROCE_V2, PORT)).hasValue(0);
        assertThat(c.used()).isEqualTo(1);
        // The same address on another device (a vlan sharing the MAC) is another entry.
        assertThat(c.add(DEF, GidType.ROCE_V2, MV1)).hasValue(1);
    }

    @Test
    void aDefaultAddMatchesOnTypeAndNdevNotOnTheGid() {
        GidCache c = new GidCache(8, 1);
        c.addDefault(DEF, GidType.ROCE_V2, PORT);
        assertThat(c.addDefault(Gid.parse("fe80::1"), GidType.ROCE_V2, PORT)).hasValue(0);
        assertThat(c.entries()).extracting(GidEntry::gid).containsExactly(DEF);
    }

    @Test
    void anIpDeleteNeverRemovesADefaultEntry() {
        GidCache c = new GidCache(8, 1);
        c.addDefault(DEF, GidType.ROCE_V2, PORT);
        assertThat(c.delete(DEF, GidType.ROCE_V2, PORT)).isEmpty();
        assertThat(c.deleteDefault(GidType.ROCE_V2, PORT)).hasValue(0);
    }

    @Test
    void theZeroGidIsRefusedAndAFullTableCountsTheDrop() {
        GidCache c = new GidCache(3, 1);
        assertThat(c.add(Gid.ZERO, GidType.ROCE_V2, MV1)).isEmpty();
        c.add(A, GidType.ROCE_V2, MV1);
        c.add(B, GidType.ROCE_V2, MV1);
        assertThat(c.add(C, GidType.ROCE_V2, MV1)).isEmpty();
        assertThat(c.overflows()).isEqualTo(1);
    }

    @Test
    void v1ComesBeforeV2ForEveryIpLikeAnMlx5Port() {
        GidCache c = RoceGidRules.replay(16, RoceGidRules.ROCE_V1_V2, List.of(
                new GidEvent.SetDefault(PORT, io.cmdemux.netdev.HwAddr.parse("52:54:00:12:34:56")),
                new GidEvent.AddIp(MV1, io.cmdemux.netdev.InetAddresses.parse("10.0.0.1"))));
        assertThat(c.entries()).extracting(e -> e.index() + " " + e.type())
                .containsExactly("0 ROCE_V1", "1 ROCE_V2", "2 ROCE_V1", "3 ROCE_V2");
    }
}
