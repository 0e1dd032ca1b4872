package io.cmdemux.gid;

import io.cmdemux.namespaces.LinkRef;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * One GID table slot in use.
 *
 * @param ndev the net device the entry belongs to (gid_attrs/ndevs), anywhere on the host; null
 *     for IB entries, and for a sysfs entry whose name could not be tied to one link
 * @param vlanId the VLAN of a RoCE entry whose ndev is a vlan device (rdma_vlan_dev_vlan_id), else empty
 * @param ndevName the ndev's name as the kernel prints it in gid_attrs/ndevs (the name in the
 *     namespace that owns it); null when there is no ndev or it is not known
 */
public record GidEntry(int index, Gid gid, GidType type, LinkRef ndev, OptionalInt vlanId, String ndevName) {
    public GidEntry {
        Objects.requireNonNull(gid, "gid");
        Objects.requireNonNull(type, "type");
        vlanId = vlanId == null ? OptionalInt.empty() : vlanId;
    }

    /** An entry without a known ndev name (the model's original shape). */
    public GidEntry(int index, Gid gid, GidType type, LinkRef ndev, OptionalInt vlanId) {
        this(index, gid, type, ndev, vlanId, null);
    }
}
