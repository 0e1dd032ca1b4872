package io.cmdemux.namespaces;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.netdev.Address;
import io.cmdemux.netdev.HwAddr;
import io.cmdemux.netdev.InetAddresses;
import io.cmdemux.netdev.Link;
import io.cmdemux.netdev.LinkInfo;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
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
 * the difference of the two maps, between any two generations; and indexes patched generation by generation
 * that hold what indexes built afresh from the same namespaces hold.
 */
class TopologySnapshotWithProperties {
    private static final NetnsId HOST = new NetnsId(4, 1000);

    /**
     * One namespace added or replaced ({@code remove} false), or removed; inode 1000 is the host. A pod's
     * {@code variant} picks its macvlan's MAC and whether it has one, and its address, which other pods may
     * hold too: the indexes' lists get more than one value, and replacements that keep some entries.
     */
    record Op(boolean remove, int inode, int variant) {}

    @Provide
    Arbitrary<List<List<Op>>> generations() {
        Arbitrary<Op> op = Combinators.combine(Arbitraries.of(false, false, true),
                Arbitraries.integers().between(1000, 1040), Arbitraries.integers().between(0, 5)).as(Op::new);
        return op.list().ofMaxSize(12).list().ofMaxSize(10);
    }

    private static final LinkRef UPLINK = new LinkRef(HOST, 2);

    private static NetnsState state(int inode, int version, int variant) {
        NetnsId id = new NetnsId(4, inode);
        TreeMap<Integer, Link> links = new TreeMap<>();
        List<Address> addrs = new ArrayList<>();
        if (id.equals(HOST)) {
            links.put(2, new Link(2, "uplink", List.of(), "veth", new LinkInfo.Veth(), null, 3, OptionalInt.empty(),
                    0, HwAddr.parse("52:54:00:12:34:56"), 1500, Link.IFF_UP, 6, Link.ARPHRD_ETHER));
        } else if (variant < 5) {
            HwAddr mac = HwAddr.parse(String.format("02:00:00:00:%02x:%02x", inode & 0xff, variant % 2));
            LinkInfo.Macvlan bridge = new LinkInfo.Macvlan(LinkInfo.Macvlan.MODE_BRIDGE, 0);
            links.put(2, new Link(2, "net1", List.of(), "macvlan", bridge,
                    null, 2, OptionalInt.of(0), 0, mac, 1500, Link.IFF_UP, 6, Link.ARPHRD_ETHER));
            addrs.add(new Address(2, 2, ip(variant % 3), 24, 0, Address.IFA_F_PERMANENT, "net1", null));
        }
        return new NetnsState(id, List.of("ns" + inode + "v" + version), id.equals(HOST), -1, links, addrs, List.of(),
                id.equals(HOST) ? Map.of() : Map.of(0, HOST));
    }

    private static InetAddress ip(int i) {
        return InetAddresses.parse("10.0.0." + (i + 1));
    }

    @Property(tries = 300)
    void namespacesAndChangesAreThoseOfTheMapTheyReplaced(@ForAll("generations") List<List<Op>> generations) {
        List<NetnsState> first = List.of(state(1003, 0, 0), state(1000, 0, 0), state(1001, 0, 1));
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
                    changed.add(state(op.inode(), ++version, op.variant()));
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
            // the patched indexes hold what a snapshot built afresh from the same namespaces does
            TopologySnapshot fresh = TopologySnapshot.of(s.generation(), HOST, s.namespaces(), List.of());
            assertThat(s.childrenOf(UPLINK)).containsExactlyInAnyOrderElementsOf(fresh.childrenOf(UPLINK));
            for (int v = 0; v < 3; v++) {
                assertThat(s.byIp(ip(v))).as("generation %d, %s", a, ip(v))
                        .containsExactlyInAnyOrderElementsOf(fresh.byIp(ip(v)));
            }
            for (NetnsState ns : s.namespaces()) {
                for (Link l : ns.links().values()) {
                    assertThat(s.byMac(l.mac())).containsExactlyInAnyOrderElementsOf(fresh.byMac(l.mac()));
                }
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
