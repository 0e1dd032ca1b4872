package io.cmdemux.gid;

import io.cmdemux.namespaces.LinkRef;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * One GID table slot in use.
 *
 * @param ndev the net device the entry belongs to (gid_attrs/ndevs), anywhere on the host; null
 *     for IB entries
 * @param vlanId the VLAN of a RoCE entry whose ndev is a vlan device (rdma_vlan_dev_vlan_id), else empty
 */
public record GidEntry(int index, Gid gid, GidType type, LinkRef ndev, OptionalInt vlanId) {
    public GidEntry {
        Objects.requireNonNull(gid, "gid");
        Objects.requireNonNull(type, "type");
        vlanId = vlanId == null ? OptionalInt.empty() : vlanId;
    }
}
