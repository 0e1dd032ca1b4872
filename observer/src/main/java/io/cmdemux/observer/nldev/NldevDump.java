package io.cmdemux.observer.nldev;

import io.cmdemux.netdev.MalformedException;
import io.cmdemux.netdev.NlMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** What the nldev dumps said at one moment: the devices and ports, and every cm_id. */
public record NldevDump(List<RdmaLink> devices, List<RdmaLink> ports, List<CmIdEntry> cmIds) {
    public NldevDump {
        devices = List.copyOf(devices);
        ports = List.copyOf(ports);
        cmIds = List.copyOf(cmIds);
    }

    /**
     * Decodes the kernel's replies, in any order (a capture of `rdma` or of nldev-dump holds all three kinds).
     * Each message that does not decode is a counted skip in {@code skipped}, with its reason.
     */
    public static NldevDump of(List<NlMessage> messages, List<String> skipped) {
        List<RdmaLink> devices = new ArrayList<>();
        List<RdmaLink> ports = new ArrayList<>();
        List<CmIdEntry> ids = new ArrayList<>();
        for (NlMessage m : messages) {
            try {
                if (m.type() == Nldev.type(Nldev.RDMA_NLDEV_CMD_GET)) {
                    devices.add(Nldev.link(m));
                } else if (m.type() == Nldev.type(Nldev.RDMA_NLDEV_CMD_PORT_GET)) {
                    ports.add(Nldev.link(m));
                } else if (m.type() == Nldev.type(Nldev.RDMA_NLDEV_CMD_RES_CM_ID_GET)) {
                    ids.addAll(Nldev.cmIds(m));
                }
            } catch (MalformedException e) {
                skipped.add("nldev message type " + m.type() + ": " + e.getMessage());
            }
        }
        return new NldevDump(dedupe(devices), dedupe(ports), ids.stream().distinct().toList());
    }

    private static List<RdmaLink> dedupe(List<RdmaLink> l) {
        return l.stream().distinct().toList();
    }

    /** The cm_id with this restrack ID on this device. */
    public Optional<CmIdEntry> cmId(String device, int cmIdn) {
        return cmIds.stream().filter(c -> c.device().equals(device) && c.cmIdn() == cmIdn).findFirst();
    }

    /** The device's name for ib_mad's device index. */
    public Optional<String> deviceName(int index) {
        return devices.stream().filter(d -> d.deviceIndex() == index).map(RdmaLink::device).findFirst();
    }
}
