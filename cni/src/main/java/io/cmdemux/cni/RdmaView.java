package io.cmdemux.cni;

import io.cmdemux.gid.RdmaTopology;
import io.cmdemux.namespaces.TopologySnapshot;

/**
 * The host as the readiness checks see it at one moment: every namespace's links and addresses,
 * and every RDMA port's tables (the kernel's from sysfs, the soft ports' as computed).
 *
 * @param generation grows with every newer view; equal generations are the same view
 */
public record RdmaView(long generation, TopologySnapshot topology, RdmaTopology rdma) {}
