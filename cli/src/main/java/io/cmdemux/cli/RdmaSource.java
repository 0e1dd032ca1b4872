package io.cmdemux.cli;

import io.cmdemux.gid.RdmaDevice;
import io.cmdemux.gid.RdmaTopology;
import io.cmdemux.gid.SoftPortSpec;
import io.cmdemux.gid.SoftRocePort;
import io.cmdemux.gid.SysfsLayout;
import io.cmdemux.gid.SysfsReader;
import io.cmdemux.namespaces.TopologySnapshot;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** The topology plus every RDMA device: the kernel's (sysfs) and the soft ports given on the command line. */
final class RdmaSource {
    private RdmaSource() {}

    record Loaded(TopologySnapshot topology, RdmaTopology rdma, List<String> problems) {}

    static Loaded load(RdmaOptions o) {
        List<SoftPortSpec> specs = new ArrayList<>();
        for (String s : o.rdmaPorts) {
            specs.add(SoftPortSpec.parse(s)); // IllegalArgumentException: a usage error
        }
        TopologySource.Loaded t = TopologySource.loadWithRoot(o.snapshot);
        SysfsLayout layout = o.sysfsRoot != null ? SysfsLayout.live(o.sysfsRoot)
                : t.root() != null ? SysfsLayout.snapshot(t.root()) : SysfsLayout.live(SysfsLayout.LIVE_ROOT);
        SysfsReader.Result sysfs = SysfsReader.read(layout, t.topology());
        List<String> problems = new ArrayList<>(sysfs.problems());
        List<RdmaDevice> devices = new ArrayList<>(sysfs.topology().devices());
        Set<String> names = new HashSet<>();
        devices.forEach(d -> names.add(d.name()));
        for (SoftPortSpec spec : specs) {
            if (!names.add(spec.name())) {
                throw new IllegalArgumentException("--rdma-port " + spec.name()
                        + ": an RDMA device of that name exists already");
            }
            SoftRocePort port = new SoftRocePort(spec);
            port.update(t.topology());
            if (port.problems().stream().anyMatch(p -> p.contains("no link"))) {
                throw new IllegalArgumentException("--rdma-port " + spec + ": there is no link " + spec.where()
                        + (spec.netns() == null ? " in the host namespace" : ""));
            }
            problems.addAll(port.problems());
            devices.add(port.device());
        }
        RdmaTopology rdma = new RdmaTopology(t.topology().generation(), sysfs.topology().netnsMode(), devices);
        return new Loaded(t.topology(), rdma, problems);
    }
}
