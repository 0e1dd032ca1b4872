package io.cmdemux.pods;

import io.cmdemux.gid.GidType;
import java.util.List;
import java.util.Objects;

/**
 * A pod the CNI plugin found ready for RDMA: where it lives and the GID index of each of its IPs.
 *
 * @param netnsPath CNI_NETNS as the runtime passed it, a path in the host's mount namespace
 * @param netnsInode the nsfs inode behind that path when the registration was checked
 * @param gidType the GID type the network asked for (rdma.gidType)
 */
public record PodRegistration(PodKey key, String netnsPath, long netnsInode, PodRef pod, GidType gidType,
        List<Attachment> attachments) {
    public PodRegistration {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(netnsPath, "netnsPath");
        pod = pod == null ? PodRef.NONE : pod;
        Objects.requireNonNull(gidType, "gidType");
        attachments = List.copyOf(attachments);
    }

    public PodRegistration withAttachments(List<Attachment> a) {
        return new PodRegistration(key, netnsPath, netnsInode, pod, gidType, a);
    }
}
