package io.cmdemux.render;

import io.cmdemux.gid.RdmaTopology;
import io.cmdemux.ingress.resolve.Decision;
import io.cmdemux.ingress.resolve.PacketMeta;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.netdev.InetAddresses;
import io.cmdemux.render.picture.DecisionOverlay;
import io.cmdemux.render.picture.Graph;
import java.util.ArrayList;
import java.util.List;

/** A decision (and the other mode's, when both ran) as a picture, for explain, replay and the daemon's status page. */
public final class DecisionPictures {
    private DecisionPictures() {}

    /** @param other the other mode's decision for the same request, or null */
    public static Graph graph(TopologySnapshot topo, RdmaTopology rdma, PacketMeta meta, Decision decision,
            Decision other) {
        List<String> caption = new ArrayList<>();
        caption.add(decision.mode().cliName() + " mode: " + DecisionView.summary(topo, decision));
        String hint = null;
        if (other != null) {
            caption.add(other.mode().cliName() + " mode: " + DecisionView.summary(topo, other));
            hint = DecisionView.disagreementHint(topo, decision, other);
            caption.add(hint == null ? "the modes agree" : "the modes DISAGREE: " + hint);
        }
        return DecisionOverlay.draw(topo, rdma, new DecisionOverlay.Scene(decision, other, requestLines(meta),
                caption, hint));
    }

    static List<String> requestLines(PacketMeta meta) {
        List<String> lines = new ArrayList<>();
        lines.add((meta.sidr() ? "SIDR REQ" : "CM REQ") + String.format(" comm 0x%08x", meta.localCommId()));
        if (meta.afIb()) {
            lines.add("AF_IB, service ID 0x" + Long.toHexString(meta.serviceId()));
        } else {
            lines.add(InetAddresses.toText(meta.srcIp()) + ":" + meta.srcPort() + " → "
                    + InetAddresses.toText(meta.dstIp()) + ":" + meta.port()
                    + meta.portSpace().map(p -> "/" + p.cliName()).orElse(""));
        }
        lines.add("on " + meta.key().device() + "/" + meta.key().port() + String.format(", P_Key 0x%04x", meta.pkey())
                + (meta.vlan().isPresent() ? ", VLAN " + meta.vlan().getAsInt() : ""));
        return lines;
    }
}
