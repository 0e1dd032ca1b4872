package io.cmdemux.namespaces;

import java.util.List;

/**
 * The kernel's own bytes for one namespace: every RTM_NEWLINK, RTM_NEWADDR, RTM_NEWROUTE and
 * RTM_NEWNSID message of its dumps, in the order they arrived. Decoding them is a pure function
 * ({@link TopologySnapshot#build}); saving them is {@link SnapshotFile}.
 *
 * @param hostNsid the nsid the host namespace has for this one, -1 for none (the host may have one for itself)
 */
public record NamespaceDump(NetnsId id, List<String> names, int hostNsid, List<byte[]> messages) {
    public NamespaceDump {
        names = List.copyOf(names);
        messages = List.copyOf(messages);
    }
}
