package io.cmdemux.observer;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.ingress.oracle.Tshark;
import io.cmdemux.ingress.resolve.HostState;
import io.cmdemux.observer.trace.KernelEvent;
import io.cmdemux.observer.trace.ReqProbeEvent;
import io.cmdemux.observer.trace.TraceLineParser;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * The kprobe cannot read a frame's 802.1Q tag; the prediction takes it from the GID entry ib_cm matched. On
 * every recorded REQ that tag is the one tshark reads from the REQ's frame in cm.pcap (captured on the client's
 * parent device, where tags are visible), untagged frames included.
 */
class FrameVlanAgainstTsharkTest {
    @Test
    void theVlanOfTheMatchedGidEntryIsTheTagOfTheFrame() throws Exception {
        TraceLineParser parser = new TraceLineParser();
        int tagged = 0;
        int untagged = 0;
        for (Path dir : LabFixtures.withTrace()) {
            List<String> trace = Files.readAllLines(dir.resolve("tracefs/trace.txt"), StandardCharsets.US_ASCII);
            if (trace.stream().noneMatch(l -> l.contains(" gid_index="))) {
                continue; // recorded before the probe read the GID entry
            }
            Map<Long, String> vlanOfReq = new HashMap<>();
            for (Map<String, String> row : Tshark.fields(dir.resolve("cm.pcap"),
                    List.of("infiniband.cm.req", "vlan.id"))) {
                // tshark names a REQ's Local Communication ID "infiniband.cm.req".
                if (!row.get("infiniband.cm.req").isEmpty()) {
                    vlanOfReq.put(Tshark.number(row.get("infiniband.cm.req")), row.get("vlan.id"));
                }
            }
            HostState host = null;
            for (String line : trace) {
                KernelEvent e = parser.parse(line);
                if (!(e instanceof ReqProbeEvent r) || r.sidr() || r.gidIndex() == ReqProbeEvent.NO_GID_INDEX) {
                    continue;
                }
                host = host == null ? KernelWatchLabTest.host(dir) : host;
                assertThat(vlanOfReq).as("%s: the REQ with comm ID 0x%08x in cm.pcap", dir.getFileName(),
                        r.remoteId()).containsKey(r.remoteId());
                String tag = vlanOfReq.get(r.remoteId());
                OptionalInt ours = Prediction.frameVlan(host, r);
                assertThat(ours.isPresent() ? String.valueOf(ours.getAsInt()) : "")
                        .as("%s 0x%08x: the VID through GID index %d", dir.getFileName(), r.remoteId(), r.gidIndex())
                        .isEqualTo(tag);
                if (tag.isEmpty()) {
                    untagged++;
                } else {
                    tagged++;
                }
            }
        }
        assertThat(tagged).as("tagged REQs with a GID index (vlan-* fixtures)").isPositive();
        assertThat(untagged).as("untagged REQs with a GID index").isPositive();
    }
}
