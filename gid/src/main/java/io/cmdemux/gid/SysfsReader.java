package io.cmdemux.gid;

import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsState;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.netdev.HwAddr;
import io.cmdemux.netdev.Link;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Reads RDMA devices, ports, GID and P_Key tables from sysfs (drivers/infiniband/core/sysfs.c)
 * into an {@link RdmaTopology}, tying every netdev name to a link of a {@link TopologySnapshot}.
 * Malformed or missing files become counted problems, never exceptions.
 *
 * <h2>Which link a gid_attrs/ndevs name means</h2>
 * print_ndev writes {@code ndev->name}: the name in the namespace that owns the device, with no
 * namespace, so "net1" in three pods is the same text three times. The rule, applied in order
 * until one link is left:
 * <ol>
 *   <li>the links of that name in any namespace (not altnames: print_ndev prints only the name);</li>
 *   <li>of those, the port's netdev and its uppers at any depth: roce_gid_mgmt records no other
 *       device as an ndev;</li>
 *   <li>of those, the ones the entry's GID belongs to: a default GID (fe80:: + EUI-64) must be
 *       their MAC's, any other GID one of their IPs (rdma_ip2gid; IPv4 as ::ffff:a.b.c.d).</li>
 * </ol>
 * If more than one is left (two pods whose net1 have the same IP) sysfs cannot tell them apart:
 * the entry keeps the name, has no ndev, and a problem says so. If none is left, the entry has
 * no ndev and a problem names the missing link.
 */
public final class SysfsReader {
    /** One sysfs attribute is at most a page; anything longer is garbage. */
    private static final int MAX_ATTRIBUTE = 4096;
    private static final Pattern SYSFS_GID = Pattern.compile("[0-9a-fA-F]{4}(:[0-9a-fA-F]{4}){7}");
    private static final Pattern GUID = Pattern.compile("[0-9a-fA-F]{4}(:[0-9a-fA-F]{4}){3}");
    private static final Pattern NUMBER = Pattern.compile("\\d{1,9}");
    /** dev_valid_name: at most IFNAMSIZ-1 bytes, no '/', ':' or whitespace. */
    private static final Pattern IFNAME = Pattern.compile("[^/:\\s]{1,15}");
    /** include/uapi/linux/if_arp.h */
    private static final int ARPHRD_ETHER = 1;
    private static final int ARPHRD_INFINIBAND = 32;
    /** The IPoIB hardware address: 4 bytes of flags and QPN, then the port GID (ipoib_main.c). */
    public static final int IPOIB_HWADDR_LEN = 20;
    public static final int IPOIB_GID_OFFSET = 4;

    private SysfsReader() {}

    /** An IPoIB or RoCE netdev as /sys/class/net shows it. */
    public record NetClassEntry(String name, int type, HwAddr address, int devPort, int devId, int pkey, String device, boolean ipoibParent) {
        /** The port GID inside a 20-byte IPoIB hardware address, or null. */
        public Gid ipoibGid() {
            if (address == null || address.length() != IPOIB_HWADDR_LEN) {
                return null;
            }
            byte[] g = new byte[16];
            System.arraycopy(address.bytes(), IPOIB_GID_OFFSET, g, 0, 16);
            return Gid.of(g);
        }
    }

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
        private final List<NetClassEntry> netClass = new ArrayList<>();
        private final Set<String> pciDevices = new HashSet<>();

        Run(SysfsLayout layout, TopologySnapshot snap) {
            this.layout = layout;
            this.snap = snap;
        }

        Result run() {
            RdmaTopology.NetnsMode mode = netnsMode();
            readNetClass();
            List<RdmaDevice> devices = new ArrayList<>();
            for (Path dev : children(layout.infiniband())) {
                if (Files.isDirectory(dev)) {
                    devices.add(device(dev));
                }
            }
            List<NetClassEntry> ours = netClass.stream()
                    .filter(n -> n.type() == ARPHRD_INFINIBAND || pciDevices.contains(n.device())).toList();
            return new Result(new RdmaTopology(snap.generation(), mode, devices), ours, problems);
        }

        private RdmaTopology.NetnsMode netnsMode() {
            if (!Files.exists(layout.netnsMode())) {
                return RdmaTopology.NetnsMode.SHARED; // ib_core not loaded: its default
            }
            Optional<String> v = text(layout.netnsMode());
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
                    problems.add(layout.netnsMode() + ": '" + clip(v.get()) + "' is neither Y nor N; assuming shared");
                    return RdmaTopology.NetnsMode.SHARED;
            }
        }

        // ---- /sys/class/net ----

        private void readNetClass() {
            for (Path nd : children(layout.net())) {
                if (!Files.isDirectory(nd)) {
                    continue;
                }
                String name = nd.getFileName().toString().replace("/", "");
                Path typeFile = nd.resolve("type");
                if (!Files.exists(typeFile)) {
                    continue;
                }
                int type = number(typeFile).orElse(-1);
                String device = link(nd.resolve("device"));
                if (type != ARPHRD_INFINIBAND && (type != ARPHRD_ETHER || device == null)) {
                    continue;
                }
                HwAddr addr = null;
                Optional<String> a = text(nd.resolve("address"));
                if (a.isPresent()) {
                    try {
                        addr = HwAddr.parse(a.get());
                    } catch (IllegalArgumentException e) {
                        problems.add(nd.resolve("address") + ": not a hardware address: '" + clip(a.get()) + "'");
                    }
                }
                int pkey = -1;
                if (Files.exists(nd.resolve("pkey"))) {
                    Optional<String> p = text(nd.resolve("pkey"));
                    pkey = p.map(SysfsReader::parsePkey).orElse(-1);
                    if (pkey < 0) {
                        problems.add(nd.resolve("pkey") + ": not a P_Key: '" + clip(p.orElse("")) + "'");
                    }
                }
                netClass.add(new NetClassEntry(name, type, addr, hexOrDec(nd.resolve("dev_port")), hexOrDec(nd.resolve("dev_id")), pkey,
                        device, Files.exists(nd.resolve("create_child"))));
            }
        }

        // ---- /sys/class/infiniband ----

        private RdmaDevice device(Path dir) {
            String name = dir.getFileName().toString().replace("/", "");
            long nodeGuid = 0;
            Optional<String> g = text(dir.resolve("node_guid"));
            if (g.isEmpty()) {
                problems.add(dir.resolve("node_guid") + ": missing or unreadable");
            } else if (!GUID.matcher(g.get()).matches()) {
                problems.add(dir.resolve("node_guid") + ": not a GUID: '" + clip(g.get()) + "'");
            } else {
                nodeGuid = Long.parseUnsignedLong(g.get().replace(":", ""), 16);
            }
            String device = link(dir.resolve("device"));
            if (device != null) {
                pciDevices.add(device);
            }
            List<RdmaPort> ports = new ArrayList<>();
            TreeMap<Integer, Path> byNumber = numbered(dir.resolve("ports"));
            if (byNumber.isEmpty()) {
                problems.add(dir + ": no ports");
            }
            for (Map.Entry<Integer, Path> p : byNumber.entrySet()) {
                RdmaPort port = port(name, device, p.getKey(), p.getValue());
                if (port != null) {
                    ports.add(port);
                }
            }
            return new RdmaDevice(name, nodeGuid, false, snap.host(), ports);
        }

        private RdmaPort port(String dev, String device, int number, Path dir) {
            String label = dev + "/" + number;
            Optional<String> ll = text(dir.resolve("link_layer"));
            RdmaPort.LinkLayer layer;
            if (ll.isPresent() && ll.get().equals("InfiniBand")) {
                layer = RdmaPort.LinkLayer.INFINIBAND;
            } else if (ll.isPresent() && ll.get().equals("Ethernet")) {
                layer = RdmaPort.LinkLayer.ETHERNET;
            } else {
                problems.add(dir.resolve("link_layer") + ": '" + clip(ll.orElse("")) + "' is neither InfiniBand nor Ethernet; port " + label + " skipped");
                return null;
            }
            boolean eth = layer == RdmaPort.LinkLayer.ETHERNET;
            String state = text(dir.resolve("state")).orElse("");
            if (state.isEmpty()) {
                problems.add(dir.resolve("state") + ": missing or unreadable");
            }
            // Raw entries first: the ndev names are resolved once the port's netdev is known.
            record Raw(int index, Gid gid, GidType type, String ndevName) {}
            List<Raw> raw = new ArrayList<>();
            for (Map.Entry<Integer, Path> e : numbered(dir.resolve("gids")).entrySet()) {
                int i = e.getKey();
                Optional<String> t = text(e.getValue());
                if (t.isEmpty()) {
                    problems.add(e.getValue() + ": empty or unreadable");
                    continue;
                }
                if (!SYSFS_GID.matcher(t.get()).matches()) {
                    problems.add(e.getValue() + ": not a GID: '" + clip(t.get()) + "'");
                    continue;
                }
                Gid gid = Gid.parse(t.get());
                if (gid.isZero()) {
                    continue; // show_port_gid prints the zero GID for a free slot
                }
                GidType type;
                Path typeFile = dir.resolve("gid_attrs/types/" + i);
                Optional<String> tt = text(typeFile);
                if (tt.isEmpty()) {
                    if (eth) {
                        problems.add(typeFile + ": missing; GID " + gid + " at " + label + " index " + i + " skipped");
                        continue;
                    }
                    type = GidType.IB; // older kernels have no gid_attrs on IB ports
                } else {
                    try {
                        type = GidType.parse(tt.get(), eth);
                    } catch (IllegalArgumentException ex) {
                        problems.add(typeFile + ": unknown GID type '" + clip(tt.get()) + "'; index " + i + " skipped");
                        continue;
                    }
                }
                String ndev = null;
                if (eth) {
                    Path ndevFile = dir.resolve("gid_attrs/ndevs/" + i);
                    Optional<String> nd = text(ndevFile);
                    if (nd.isEmpty() || !IFNAME.matcher(nd.get()).matches()) {
                        problems.add(ndevFile + ": " + (nd.isEmpty() ? "missing" : "not an interface name: '" + clip(nd.get()) + "'")
                                + "; a RoCE GID always has an ndev (add_roce_gid)");
                    } else {
                        ndev = nd.get();
                    }
                }
                raw.add(new Raw(i, gid, type, ndev));
            }
            List<Integer> pkeys = new ArrayList<>();
            TreeMap<Integer, Path> pk = numbered(dir.resolve("pkeys"));
            int expect = 0;
            for (Map.Entry<Integer, Path> e : pk.entrySet()) {
                while (expect < e.getKey()) {
                    pkeys.add(0); // a hole in the table: an empty entry, as 0x0000 is
                    expect++;
                }
                Optional<String> t = text(e.getValue());
                int v = t.map(SysfsReader::parsePkey).orElse(-1);
                if (v < 0) {
                    problems.add(e.getValue() + ": not a P_Key: '" + clip(t.orElse("")) + "'");
                    v = 0;
                }
                pkeys.add(v);
                expect++;
            }
            Gid gid0 = raw.stream().filter(r -> r.index() == 0).map(Raw::gid).findFirst().orElse(null);
            long portGuid = gid0 == null ? 0 : gid0.lo();
            List<Long> aliasGuids = new ArrayList<>();
            LinkRef netdev = null;
            List<LinkRef> parents = List.of();
            if (eth) {
                String gid0Ndev = null;
                for (Raw r : raw) {
                    if (r.index() == 0) {
                        gid0Ndev = r.ndevName();
                    }
                }
                netdev = roceNetdev(label, device, number, gid0Ndev);
            } else {
                for (Raw r : raw) {
                    if (r.index() > 0) {
                        aliasGuids.add(r.gid().lo());
                    }
                }
                parents = ipoibParents(device, number, gid0);
            }
            Set<LinkRef> mayOwn = netdev == null ? Set.of() : roceNdevs(netdev);
            List<GidEntry> gids = new ArrayList<>();
            for (Raw r : raw) {
                LinkRef ref = r.ndevName() == null ? null : ndev(label, r.index(), r.ndevName(), r.gid(), mayOwn);
                gids.add(new GidEntry(r.index(), r.gid(), r.type(), ref, OptionalInt.empty(), r.ndevName()));
            }
            return new RdmaPort(number, layer, state, portGuid, aliasGuids, RoceGidRules.named(snap, gids), new PkeyTable(pkeys), netdev, parents);
        }

        /**
         * The RoCE port's own netdev (rdma_ndev): the Ethernet netdev of the same PCI device whose
         * dev_port is the port number minus one (dev_id on kernels before dev_port), else the
         * ndev of the default GID at index 0.
         */
        private LinkRef roceNetdev(String label, String device, int port, String gid0Ndev) {
            if (device != null) {
                List<NetClassEntry> same = netClass.stream()
                        .filter(n -> n.type() == ARPHRD_ETHER && device.equals(n.device())).toList();
                List<NetClassEntry> byPort = same.stream().filter(n -> n.devPort() == port - 1).toList();
                if (byPort.size() != 1) {
                    byPort = same.stream().filter(n -> n.devPort() < 0 && n.devId() == port - 1).toList();
                }
                if (byPort.size() == 1) {
                    Link l = snap.hostState().linkByName(byPort.get(0).name());
                    if (l != null) {
                        return new LinkRef(snap.host(), l.ifindex());
                    }
                }
            }
            if (gid0Ndev != null) {
                Link l = snap.hostState().linkByName(gid0Ndev);
                if (l != null && l.name().equals(gid0Ndev)) {
                    return new LinkRef(snap.host(), l.ifindex());
                }
                List<LinkRef> any = named(gid0Ndev);
                if (any.size() == 1) {
                    return any.get(0);
                }
            }
            problems.add(label + ": cannot tell the port's netdev (no net class device link, no ndev at GID index 0)");
            return null;
        }

        /** The devices roce_gid_mgmt may record as ndev for this port. */
        private Set<LinkRef> roceNdevs(LinkRef netdev) {
            Set<LinkRef> s = new HashSet<>(RoceGidRules.allUppers(snap, netdev));
            s.add(netdev);
            return s;
        }

        private LinkRef ndev(String label, int index, String name, Gid gid, Set<LinkRef> mayOwn) {
            List<LinkRef> candidates = named(name);
            if (candidates.size() == 1) {
                return candidates.get(0);
            }
            if (candidates.isEmpty()) {
                problems.add(label + " index " + index + ": ndev '" + name + "' is no link in any namespace");
                return null;
            }
            List<LinkRef> narrowed = candidates.stream().filter(mayOwn::contains).toList();
            if (narrowed.size() == 1) {
                return narrowed.get(0);
            }
            List<LinkRef> pool = narrowed.isEmpty() ? candidates : narrowed;
            List<LinkRef> owners = pool.stream().filter(c -> owns(c, gid)).toList();
            if (owners.size() == 1) {
                return owners.get(0);
            }
            List<String> where = new ArrayList<>();
            for (LinkRef c : (owners.isEmpty() ? pool : owners)) {
                NetnsState s = snap.namespace(c.netns());
                where.add(name + "@" + (s == null ? c.netns().toString() : s.displayName()));
            }
            problems.add(label + " index " + index + ": ndev '" + name + "' with GID " + gid + " could be any of " + where
                    + "; sysfs prints only the name, so this entry has no namespace");
            return null;
        }

        private boolean owns(LinkRef c, Gid gid) {
            Link l = snap.link(c);
            if (l != null && l.mac() != null && RoceGidRules.defaultGid(l.mac()).equals(gid)) {
                return true;
            }
            NetnsState s = snap.namespace(c.netns());
            if (s == null) {
                return false;
            }
            for (InetAddress ip : RoceGidRules.gidAddresses(s, c.ifindex())) {
                if (Gid.ofIp(ip).equals(gid)) {
                    return true;
                }
            }
            return false;
        }

        private List<LinkRef> named(String name) {
            List<LinkRef> out = new ArrayList<>();
            for (NetnsState s : snap.namespaces()) {
                for (Link l : s.links().values()) {
                    if (l.name().equals(name)) {
                        out.add(new LinkRef(s.id(), l.ifindex()));
                    }
                }
            }
            return out;
        }

        /**
         * IPoIB parents on this port: net class entries with create_child (only parents have it)
         * of the same PCI device and port, and links anywhere whose 20-byte address carries the
         * port GID and that have no IFLA_LINK parent (ipoib_get_iflink gives a parent itself).
         */
        private List<LinkRef> ipoibParents(String device, int port, Gid gid0) {
            Set<LinkRef> out = new HashSet<>();
            for (NetClassEntry n : netClass) {
                if (n.type() != ARPHRD_INFINIBAND || !n.ipoibParent()) {
                    continue;
                }
                boolean sameGid = gid0 != null && gid0.equals(n.ipoibGid());
                boolean samePort = device != null && device.equals(n.device())
                        && (n.devPort() == port - 1 || (n.devPort() < 0 && n.devId() == port - 1));
                if (sameGid || samePort) {
                    Link l = snap.hostState().linkByName(n.name());
                    if (l != null) {
                        out.add(new LinkRef(snap.host(), l.ifindex()));
                    } else {
                        problems.add("IPoIB parent " + n.name() + " is in sysfs but not in the host's links");
                    }
                }
            }
            if (gid0 != null) {
                for (NetnsState s : snap.namespaces()) {
                    for (Link l : s.links().values()) {
                        if (l.arphrdType() == Link.ARPHRD_INFINIBAND && !l.hasParent() && l.mac() != null
                                && l.mac().length() == IPOIB_HWADDR_LEN
                                && gid0.equals(new NetClassEntry(l.name(), ARPHRD_INFINIBAND, l.mac(), -1, -1, -1, null, true).ipoibGid())) {
                            out.add(new LinkRef(s.id(), l.ifindex()));
                        }
                    }
                }
            }
            List<LinkRef> sorted = new ArrayList<>(out);
            sorted.sort(RoceGidRules.enumerationOrder(snap));
            return sorted;
        }

        // ---- files ----

        private List<Path> children(Path dir) {
            List<Path> out = new ArrayList<>();
            if (!Files.isDirectory(dir)) {
                return out;
            }
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
                for (Path p : ds) {
                    out.add(p);
                }
            } catch (IOException e) {
                problems.add(dir + ": cannot list: " + e.getMessage());
            }
            out.sort(Comparator.comparing(p -> p.getFileName().toString()));
            return out;
        }

        /** Entries named by a decimal number, by number; other names are counted as problems. */
        private TreeMap<Integer, Path> numbered(Path dir) {
            TreeMap<Integer, Path> out = new TreeMap<>();
            for (Path p : children(dir)) {
                String n = p.getFileName().toString().replace("/", "");
                if (NUMBER.matcher(n).matches()) {
                    out.put(Integer.parseInt(n), p);
                } else {
                    problems.add(p + ": unexpected entry (expected a number)");
                }
            }
            return out;
        }

        /** The attribute's text without the trailing newline; empty when missing, unreadable, empty or too long. */
        private Optional<String> text(Path p) {
            if (!Files.isRegularFile(p)) {
                return Optional.empty();
            }
            byte[] b;
            try (InputStream in = Files.newInputStream(p)) {
                b = in.readNBytes(MAX_ATTRIBUTE + 1);
            } catch (IOException e) {
                // sysfs answers EINVAL for attributes of free GID slots; callers decide whether that matters.
                return Optional.empty();
            }
            if (b.length > MAX_ATTRIBUTE) {
                problems.add(p + ": longer than a sysfs attribute can be");
                return Optional.empty();
            }
            String s = new String(b, StandardCharsets.UTF_8).strip();
            return s.isEmpty() ? Optional.empty() : Optional.of(s);
        }

        private OptionalInt number(Path p) {
            Optional<String> t = text(p);
            if (t.isEmpty()) {
                return OptionalInt.empty();
            }
            if (!NUMBER.matcher(t.get()).matches()) {
                problems.add(p + ": not a number: '" + clip(t.get()) + "'");
                return OptionalInt.empty();
            }
            return OptionalInt.of(Integer.parseInt(t.get()));
        }

        /** dev_port is decimal, dev_id is "0x%x" (net-sysfs.c); -1 when absent or malformed. */
        private int hexOrDec(Path p) {
            Optional<String> t = text(p);
            if (t.isEmpty()) {
                return -1;
            }
            String s = t.get();
            try {
                if (s.startsWith("0x")) {
                    return s.length() > 2 && s.length() <= 10 ? (int) Long.parseLong(s.substring(2), 16) : fail(p, s);
                }
                return NUMBER.matcher(s).matches() ? Integer.parseInt(s) : fail(p, s);
            } catch (NumberFormatException e) {
                return fail(p, s);
            }
        }

        private int fail(Path p, String s) {
            problems.add(p + ": not a number: '" + clip(s) + "'");
            return -1;
        }

        /**
         * The last component of a symlink's target (the PCI device, "0000:81:00.0"), or of the
         * target written in a regular file standing in for the link. The relative paths differ
         * between /sys/class/net and /sys/class/infiniband; the device's own name does not.
         */
        private String link(Path p) {
            String target;
            try {
                target = Files.isSymbolicLink(p) ? Files.readSymbolicLink(p).toString() : text(p).orElse(null);
            } catch (IOException | UnsupportedOperationException e) {
                return null;
            }
            if (target == null) {
                return null;
            }
            String t = target.endsWith("/") ? target.substring(0, target.length() - 1) : target;
            int slash = t.lastIndexOf('/');
            String last = slash >= 0 ? t.substring(slash + 1) : t;
            return last.isEmpty() || last.equals("..") || last.equals(".") ? null : last;
        }
    }

    /** Keeps problem messages one line and short, whatever garbage a file holds. */
    static String clip(String s) {
        String one = s.replaceAll("[\\p{Cntrl}]", "?");
        return one.length() > 60 ? one.substring(0, 60) + "..." : one;
    }
}
