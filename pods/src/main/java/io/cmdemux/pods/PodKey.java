package io.cmdemux.pods;

import java.util.Objects;

/**
 * One attachment of a pod to a network: the CNI spec's primary key for plugin state,
 * (network name, CNI_CONTAINERID, CNI_IFNAME).
 */
public record PodKey(String network, String containerId, String ifname) {
    public PodKey {
        Objects.requireNonNull(network, "network");
        Objects.requireNonNull(containerId, "containerId");
        Objects.requireNonNull(ifname, "ifname");
        if (containerId.isEmpty() || ifname.isEmpty()) {
            throw new IllegalArgumentException("a pod attachment needs a container ID and an interface name");
        }
    }

    @Override
    public String toString() {
        return network + "/" + containerId + "/" + ifname;
    }
}
