package io.cmdemux.gid;

import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.netdev.HwAddr;
import io.cmdemux.netdev.Link;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads RDMA devices, ports, GID and P_Key tables from sysfs (drivers/infiniband/core/sysfs.c)
 * into an {@link RdmaTopology}, tying every netdev name to a link of a {@link TopologySnapshot}
 * ({@link NdevResolver} has the rule). Malformed or missing files become counted problems, never
 * exceptions. The files are read through {@link SysfsTree}, as {@link SysfsCollector} copies them.
 */
public final class SysfsReader {
    private static final Pattern SYSFS_GID = Pattern.compile("[0-9a-fA-F]{4}(:[0-9a-fA-F]{4}){7}");
    private static final Pattern GUID = Pattern.compile("[0-9a-fA-F]{4}(:[0-9a-fA-F]{4}){3}");
    /** dev_valid_name: at most IFNAMSIZ-1 bytes, no '/', ':' or whitespace. */
    private static final Pattern IFNAME = Pattern.compile("[^/:\\s]{1,15}");
    private SysfsReader() {}

    /**
     * @param netClass the IPoIB and Ethernet netdevs of the net class that belong to RDMA devices
     */
    public record Result(RdmaTopology topology, List<NetClassEntry> netClass, List<String> problems) {
        public Result {
            netClass = List.copyOf(netClass);
            problems = List.copyOf(problems);
        }
    }

    public static Result read(SysfsLayout layout, TopologySnapshot snap) {
        return new SysfsReader.Run(layout, snap).run();
    }

    /** Parses "0x8001" (pkey files) into 0..0xffff, or -1. */
    static int parsePkey(String s) {
        String t = s.trim();
        if (t.startsWith("0x") || t.startsWith("0X")) {
            t = t.substring(2);
        }
        if (t.isEmpty() || t.length() > 4 || !t.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
            return -1;
        }
        return Integer.parseInt(t, 16);
    }

    private static final class Run {
        private final SysfsLayout layout;
        private final TopologySnapshot snap;
        private final List<String> problems = new ArrayList<>();
        private final SysfsTree tree = new SysfsTree(problems);
        private final List<NetClassEntry> netClass = new ArrayList<>();
        private final Set<String> pciDevices = new HashSet<>();
        private NdevResolver ndevs;

        Run(SysfsLayout layout, TopologySnapshot snap) {
            this.layout = layout;
            this.snap = snap;
        }

        Result run() {
            RdmaTopology.NetnsMode mode = netnsMode();
            readNetClass();
            ndevs = new NdevResolver(snap, netClass, tree);
            List<RdmaDevice> devices = new ArrayList<>();
            for (Path dev : tree.directories(layout.infiniband())) {
                devices.add(device(dev));
            }
            List<NetClassEntry> ours = netClass.stream()
                    .filter(n -> n.type() == Link.ARPHRD_INFINIBAND || pciDevices.contains(n.device())).toList();
            return new Result(new RdmaTopology(snap.generation(), mode, devices), ours, problems);
        }

        private RdmaTopology.NetnsMode netnsMode() {
            if (!Files.exists(layout.netnsMode())) {
                return RdmaTopology.NetnsMode.SHARED; // ib_core not loaded: its default
            }
            Optional<String> v = tree.text(layout.netnsMode());
            if (v.isEmpty()) {
                return RdmaTopology.NetnsMode.SHARED;
            }
            // A bool module parameter reads Y or N (param_get_bool).
            switch (v.get()) {
                case "Y", "1":
                    return RdmaTopology.NetnsMode.SHARED;
                case "N", "0":
                    return RdmaTopology.NetnsMode.EXCLUSIVE;
                default:
                    tree.problem(layout.netnsMode() + ": '" + SysfsTree.clip(v.get())
                            + "' is neither Y nor N; assuming shared");
                    return RdmaTopology.NetnsMode.SHARED;
            }
        }

        // ---- /sys/class/net ----

        private void readNetClass() {
            for (Path nd : tree.directories(layout.net())) {
                Path typeFile = nd.resolve("type");
                if (!Files.exists(typeFile)) {
                    continue;
                }
                int type = tree.number(typeFile).orElse(-1);
                String device = tree.device(SysfsTree.deviceLink(nd));
                if (type != Link.ARPHRD_INFINIBAND && (type != Link.ARPHRD_ETHER || device == null)) {
                    continue;
                }
                HwAddr address = address(nd.resolve("address"));
                int pkey = pkey(nd.resolve("pkey"));
                netClass.add(new NetClassEntry(SysfsTree.name(nd), type, address, tree.hexOrDec(nd.resolve("dev_port")),
                        tree.hexOrDec(nd.resolve("dev_id")), pkey, device, Files.exists(nd.resolve("create_child"))));
            }
        }

        private HwAddr address(Path file) {
            Optional<String> a = tree.text(file);
            if (a.isEmpty()) {
                return null;
            }
            try {
                return HwAddr.parse(a.get());
            } catch (IllegalArgumentException e) {
                tree.problem(file + ": not a hardware address: '" + SysfsTree.clip(a.get()) + "'");
                return null;
            }
        }

        /** An IPoIB child's P_Key; -1 for a netdev without one. */
        private int pkey(Path file) {
            if (!Files.exists(file)) {
                return -1;
            }
            Optional<String> p = tree.text(file);
            int pkey = p.map(SysfsReader::parsePkey).orElse(-1);
            if (pkey < 0) {
                tree.problem(file + ": not a P_Key: '" + SysfsTree.clip(p.orElse("")) + "'");
            }
            return pkey;
        }

        // ---- /sys/class/infiniband ----

        private RdmaDevice device(Path dir) {
            String name = SysfsTree.name(dir);
            long nodeGuid = 0;
            Optional<String> g = tree.text(dir.resolve("node_guid"));
            if (g.isEmpty()) {
                tree.problem(dir.resolve("node_guid") + ": missing or unreadable");
            } else if (!GUID.matcher(g.get()).matches()) {
                tree.problem(dir.resolve("node_guid") + ": not a GUID: '" + SysfsTree.clip(g.get()) + "'");
            } else {
                nodeGuid = Long.parseUnsignedLong(g.get().replace(":", ""), 16);
            }
            String device = tree.device(SysfsTree.deviceLink(dir));
            if (device != null) {
                pciDevices.add(device);
            }
            List<RdmaPort> ports = new ArrayList<>();
            Map<Integer, Path> byNumber = tree.numbered(SysfsTree.ports(dir));
            if (byNumber.isEmpty()) {
                tree.problem(dir + ": no ports");
            }
            for (Map.Entry<Integer, Path> p : byNumber.entrySet()) {
                RdmaPort port = port(name, device, p.getKey(), p.getValue());
                if (port != null) {
                    ports.add(port);
                }
            }
            return new RdmaDevice(name, nodeGuid, false, snap.host(), ports, device);
        }

        /** One GID table entry as sysfs shows it; the ndev name is tied to a link once the port's netdev is known. */
        private record Slot(int index, Gid gid, GidType type, String ndevName) {}

        private RdmaPort port(String dev, String device, int number, Path dir) {
            String label = dev + "/" + number;
            RdmaPort.LinkLayer layer = linkLayer(dir, label);
            if (layer == null) {
                return null;
            }
            boolean eth = layer == RdmaPort.LinkLayer.ETHERNET;
            String state = tree.text(dir.resolve("state")).orElse("");
            if (state.isEmpty()) {
                tree.problem(dir.resolve("state") + ": missing or unreadable");
            }
            List<Slot> slots = gidTable(dir, label, eth);
            List<Integer> pkeys = pkeyTable(dir);
            Slot slot0 = slots.stream().filter(r -> r.index() == 0).findFirst().orElse(null);
            Gid gid0 = slot0 == null ? null : slot0.gid();
            long portGuid = gid0 == null ? 0 : gid0.lo();
            List<Long> aliasGuids = new ArrayList<>();
            LinkRef netdev = null;
            List<LinkRef> parents = List.of();
            if (eth) {
                netdev = ndevs.roceNetdev(label, device, number, slot0 == null ? null : slot0.ndevName());
            } else {
                for (Slot r : slots) {
                    if (r.index() > 0) {
                        aliasGuids.add(r.gid().lo());
                    }
                }
                parents = ndevs.ipoibParents(device, number, gid0);
            }
            Set<LinkRef> mayOwn = netdev == null ? Set.of() : ndevs.mayRecord(netdev);
            List<GidEntry> gids = new ArrayList<>();
            for (Slot r : slots) {
                LinkRef ref = r.ndevName() == null ? null : ndevs.ndev(label, r.index(), r.ndevName(), r.gid(), mayOwn);
                gids.add(new GidEntry(r.index(), r.gid(), r.type(), ref, OptionalInt.empty(), r.ndevName()));
            }
            return new RdmaPort(number, layer, state, portGuid, aliasGuids, RoceGidRules.named(snap, gids),
                    new PkeyTable(pkeys), netdev, parents);
        }

        /** The port's link layer; null (the port skipped, and counted) when it is neither. */
        private RdmaPort.LinkLayer linkLayer(Path dir, String label) {
            Optional<String> ll = tree.text(dir.resolve("link_layer"));
            if (ll.isPresent() && ll.get().equals("InfiniBand")) {
                return RdmaPort.LinkLayer.INFINIBAND;
            }
            if (ll.isPresent() && ll.get().equals("Ethernet")) {
                return RdmaPort.LinkLayer.ETHERNET;
            }
            tree.problem(dir.resolve("link_layer") + ": '" + SysfsTree.clip(ll.orElse(""))
                    + "' is neither InfiniBand nor Ethernet; port " + label + " skipped");
            return null;
        }

        /** The used slots of the port's GID table, in index order; a malformed slot is counted and left out. */
        private List<Slot> gidTable(Path dir, String label, boolean eth) {
            List<Slot> slots = new ArrayList<>();
            for (Map.Entry<Integer, Path> e : tree.numbered(SysfsTree.gids(dir)).entrySet()) {
                Slot slot = gidSlot(dir, label, eth, e.getKey(), e.getValue());
                if (slot != null) {
                    slots.add(slot);
                }
            }
            return slots;
        }

        private Slot gidSlot(Path dir, String label, boolean eth, int i, Path file) {
            Optional<String> t = tree.text(file);
            if (t.isEmpty()) {
                tree.problem(file + ": empty or unreadable");
                return null;
            }
            if (!SYSFS_GID.matcher(t.get()).matches()) {
                tree.problem(file + ": not a GID: '" + SysfsTree.clip(t.get()) + "'");
                return null;
            }
            Gid gid = Gid.parse(t.get());
            if (gid.isZero()) {
                return null; // show_port_gid prints the zero GID for a free slot
            }
            GidType type;
            Path typeFile = SysfsTree.gidType(dir, String.valueOf(i));
            Optional<String> tt = tree.text(typeFile);
            if (tt.isEmpty()) {
                if (eth) {
                    tree.problem(typeFile + ": missing; GID " + gid + " at " + label + " index " + i + " skipped");
                    return null;
                }
                type = GidType.IB; // older kernels have no gid_attrs on IB ports
            } else {
                try {
                    type = GidType.parse(tt.get(), eth);
                } catch (IllegalArgumentException ex) {
                    tree.problem(typeFile + ": unknown GID type '" + SysfsTree.clip(tt.get()) + "'; index " + i
                            + " skipped");
                    return null;
                }
            }
            return new Slot(i, gid, type, eth ? ndevName(SysfsTree.gidNdev(dir, String.valueOf(i))) : null);
        }

        /** A RoCE GID's ndev name; null, and counted, when missing or malformed. */
        private String ndevName(Path ndevFile) {
            Optional<String> nd = tree.text(ndevFile);
            if (nd.isEmpty() || !IFNAME.matcher(nd.get()).matches()) {
                tree.problem(ndevFile + ": " + (nd.isEmpty() ? "missing" : "not an interface name: '"
                        + SysfsTree.clip(nd.get()) + "'") + "; a RoCE GID always has an ndev (add_roce_gid)");
                return null;
            }
            return nd.get();
        }

        /** The P_Key table by index; a hole or an unreadable entry is an empty entry, as 0x0000 is. */
        private List<Integer> pkeyTable(Path dir) {
            List<Integer> pkeys = new ArrayList<>();
            int expect = 0;
            for (Map.Entry<Integer, Path> e : tree.numbered(SysfsTree.pkeys(dir)).entrySet()) {
                while (expect < e.getKey()) {
                    pkeys.add(0);
                    expect++;
                }
                Optional<String> t = tree.text(e.getValue());
                int v = t.map(SysfsReader::parsePkey).orElse(-1);
                if (v < 0) {
                    tree.problem(e.getValue() + ": not a P_Key: '" + SysfsTree.clip(t.orElse("")) + "'");
                    v = 0;
                }
                pkeys.add(v);
                expect++;
            }
            return pkeys;
        }
    }
}
