package io.cmdemux.observer.nldev;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cmdemux.namespaces.SnapshotFile;
import io.cmdemux.netdev.MalformedException;
import io.cmdemux.netdev.NlMessage;
import io.cmdemux.observer.LabFixtures;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The nldev decoder on the kernel's own RES_CM_ID_GET replies, recorded in the lab (rdma/NS.pcap), against a
 * second decoder written separately: scripts/lab/nldev-cmids (od and awk over the same bytes).
 */
class NldevLabDumpTest {
    static List<Path> captures() throws IOException {
        List<Path> out = new ArrayList<>();
        for (Path d : LabFixtures.withTrace()) {
            try (Stream<Path> s = Files.list(d.resolve("rdma"))) {
                s.filter(p -> p.toString().endsWith(".pcap")).sorted().forEach(out::add);
            }
        }
        return out;
    }

    @ParameterizedTest
    @MethodSource("captures")
    void cmIdsDecodeAsTheAwkDecoderOfTheLabReadsThem(Path pcap) throws Exception {
        List<String> skipped = new ArrayList<>();
        List<NlMessage> msgs = new ArrayList<>();
        for (byte[] m : SnapshotFile.readNetlinkPcap(pcap)) {
            msgs.add(NlMessage.of(m));
        }
        NldevDump dump = NldevDump.of(msgs, skipped);
        assertThat(skipped).isEmpty();
        List<String> ours = new ArrayList<>();
        for (CmIdEntry c : dump.cmIds()) {
            ours.add(c.device() + "\t" + c.port() + "\t" + c.cmIdn() + "\t" + c.state() + "\t" + c.ps() + "\t"
                    + c.pid() + "\t" + sockaddr(c));
        }
        // Empty in a scenario without listeners (no-listener-anywhere), as the awk decoder finds it too.
        assertThat(ours).as("cm_ids of %s", pcap).containsExactlyInAnyOrderElementsOf(awk(pcap));
        if (!LabFixtures.exclusive(pcap.getParent().getParent())) {
            assertThat(dump.devices()).extracting(RdmaLink::device).as("shared mode: every namespace sees rxe0")
                    .contains("rxe0");
        }
        assertThat(dump.ports()).allSatisfy(p -> assertThat(p.port()).isPositive());
    }

    @Test
    void inExclusiveModeADeviceIsListedByOneNamespaceOnly() throws Exception {
        int fixtures = 0;
        for (Path d : LabFixtures.withTrace()) {
            if (!LabFixtures.exclusive(d)) {
                continue;
            }
            List<String> seenIn = new ArrayList<>();
            try (Stream<Path> s = Files.list(d.resolve("rdma"))) {
                for (Path pcap : s.filter(p -> p.toString().endsWith(".pcap")).sorted().toList()) {
                    List<NlMessage> msgs = new ArrayList<>();
                    for (byte[] m : SnapshotFile.readNetlinkPcap(pcap)) {
                        msgs.add(NlMessage.of(m));
                    }
                    if (NldevDump.of(msgs, new ArrayList<>()).devices().stream()
                            .anyMatch(l -> l.device().equals("rxe0"))) {
                        seenIn.add(pcap.getFileName().toString());
                    }
                }
            }
            assertThat(seenIn).as("%s: the dumps that list rxe0", d.getFileName()).hasSize(1);
            fixtures++;
        }
        assertThat(fixtures).as("exclusive-mode fixtures with nldev dumps (scripts/lab/scenarios/exclusive-*)")
                .isPositive();
    }

    private static String sockaddr(CmIdEntry c) {
        if (c.src() == null) {
            return "-";
        }
        byte[] a = c.src().getAddress().getAddress();
        if (a.length == 4) {
            return "inet/" + c.src().getAddress().getHostAddress() + "/" + c.src().getPort();
        }
        StringBuilder b = new StringBuilder("inet6/");
        for (int i = 0; i < 8; i++) {
            b.append(i == 0 ? "" : ":").append(Integer.toHexString(((a[2 * i] & 0xff) << 8) | (a[2 * i + 1] & 0xff)));
        }
        int scope = ((java.net.Inet6Address) c.src().getAddress()).getScopeId();
        return b.append(scope != 0 ? "%" + scope : "").append("/").append(c.src().getPort()).toString();
    }

    private static List<String> awk(Path pcap) throws Exception {
        Process p = new ProcessBuilder(Path.of("..", "scripts", "lab", "nldev-cmids").toString(), pcap.toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as("scripts/lab/nldev-cmids %s (needs od and awk): %s", pcap, out).isZero();
        return out.lines().toList();
    }

    @Test
    void aCmIdEntryCutShortIsMalformedNotACrash() throws Exception {
        Path pcap = captures().stream().filter(p -> p.getFileName().toString().equals("init.pcap")).findFirst()
                .orElseThrow();
        NlMessage reply = null;
        for (byte[] m : SnapshotFile.readNetlinkPcap(pcap)) {
            NlMessage n = NlMessage.of(m);
            if (n.type() == Nldev.type(Nldev.RDMA_NLDEV_CMD_RES_CM_ID_GET) && !Nldev.cmIds(n).isEmpty()) {
                reply = n;
            }
        }
        assertThat(reply).as("a RES_CM_ID_GET reply with entries in %s", pcap).isNotNull();
        byte[] bytes = reply.toBytes();
        // Grow the first cm_id entry's nla_len past its nest: the kernel never sends that.
        int at = findEntry(bytes);
        bytes[at] = (byte) 0xff;
        bytes[at + 1] = (byte) 0x7f;
        NlMessage bad = NlMessage.of(bytes);
        assertThatThrownBy(() -> Nldev.cmIds(bad)).isInstanceOf(MalformedException.class)
                .hasMessageContaining("cm_id entry");
        List<String> skipped = new ArrayList<>();
        NldevDump.of(List.of(bad), skipped);
        assertThat(skipped).hasSize(1);
        byte[] cut = Arrays.copyOf(reply.toBytes(), 24);
        java.nio.ByteBuffer.wrap(cut).order(java.nio.ByteOrder.nativeOrder()).putInt(0, 24);
        assertThatThrownBy(() -> Nldev.cmIds(NlMessage.of(cut))).isInstanceOf(MalformedException.class);
    }

    /** The first RES_CM_ID_ENTRY header inside the RES_CM_ID nest. */
    private static int findEntry(byte[] b) {
        java.nio.ByteBuffer buf = java.nio.ByteBuffer.wrap(b).order(java.nio.ByteOrder.nativeOrder());
        int pos = NlMessage.HEADER_SIZE;
        while (pos + 4 <= b.length) {
            int len = Short.toUnsignedInt(buf.getShort(pos));
            int type = Short.toUnsignedInt(buf.getShort(pos + 2)) & 0x3fff;
            if (type == Nldev.RDMA_NLDEV_ATTR_RES_CM_ID) {
                return pos + 4;
            }
            pos += NlMessage.align(Math.max(len, 4));
        }
        throw new AssertionError("no RDMA_NLDEV_ATTR_RES_CM_ID");
    }
}
