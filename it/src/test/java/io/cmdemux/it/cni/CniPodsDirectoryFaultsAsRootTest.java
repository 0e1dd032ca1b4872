package io.cmdemux.it.cni;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cmdemux.namespaces.testkit.Host;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The daemon's pods directory full, then read-only (issue 20 §3): a real tmpfs mounted on it, filled
 * with dd, then remounted read-only. The registration is refused with a CNI error that says why, the
 * daemon keeps nothing it could not write, no half-written file is left, and once the file system
 * can take writes again the next ADD registers in full. Needs root.
 */
class CniPodsDirectoryFaultsAsRootTest {
    private static final String NETWORK = "rdma-net";

    @Test
    void aFullOrReadOnlyPodsDirectoryRefusesTheRegistrationAndLeavesNoHalfWrittenFile() throws Exception {
        try (CniNode node = new CniNode("cpf")) {
            Path pods = node.socket.getParent().resolve("pods");
            Files.createDirectories(pods);
            Host.sh("mount", "-t", "tmpfs", "-o", "size=64k,mode=0700", "cmdemux-pods-test", pods.toString());
            try {
                node.startDaemon("soft0=" + node.uplink + ":v1,v2");
                CniRuntime rt = node.runtime();
                // one host-local dataDir for all three ADDs, so that each pod gets its own IP
                ObjectNode list = CniRuntime.conflist("1.0.0", NETWORK, node.macvlan(node.uplink), node.cmdemux());

                // full: dd stops at ENOSPC, so the file system has no block left
                Host.run("dd", "if=/dev/zero", "of=" + pods.resolve("filler"), "bs=4k");
                refused(node, rt, list, "c1", "No space left on device", pods);

                // read-only, with room again
                Files.delete(pods.resolve("filler"));
                Host.sh("mount", "-o", "remount,ro", pods.toString());
                refused(node, rt, list, "c2", "Read-only file system", pods);

                Host.sh("mount", "-o", "remount,rw", pods.toString());
                String netns = node.pod("ok");
                CniRuntime.AddResult add = rt.add(list,
                        new CniRuntime.Attachment("c3", netns, "net1", "IgnoreUnknown=1"));
                assertThat(add.ok()).as("%s", add.invocations()).isTrue();
                assertThat(node.pods()).hasSize(1);
                List<Path> files = files(pods);
                assertThat(files).as("one whole registration file, nothing else").hasSize(1);
                JsonNode onDisk = CniRuntime.JSON.readTree(Files.readAllBytes(files.get(0)));
                assertThat(onDisk.get("containerId").asText()).isEqualTo("c3");
                assertThat(onDisk.at("/netns/inode").asLong()).isEqualTo(CniNode.inode(netns));
            } finally {
                node.stopDaemon();
                Host.run("umount", pods.toString());
            }
        }
    }

    private static void refused(CniNode node, CniRuntime rt, ObjectNode list, String containerId, String why,
            Path pods) throws Exception {
        String netns = node.pod(containerId);
        CniRuntime.AddResult add = rt.add(list, new CniRuntime.Attachment(containerId, netns, "net1",
                "IgnoreUnknown=1"));
        assertThat(add.ok()).as("ADD with the pods directory failing (%s): %s", why, add.invocations()).isFalse();
        CniRuntime.Invocation last = add.last();
        assertThat(last.type()).isEqualTo("cmdemux-cni");
        assertThat(last.exit()).isNotZero();
        JsonNode error = last.json();
        assertThat(error.get("code").asInt()).as("a CNI error code").isPositive();
        assertThat(error.get("msg").asText() + " " + error.path("details").asText())
                .as("the error says what went wrong")
                .contains(why);
        assertThat(node.pods()).as("the daemon keeps no registration it could not write").isEmpty();
        assertThat(files(pods)).as("no registration file, whole or half-written").isEmpty();
    }

    /** The directory's files, the test's own filler aside. */
    private static List<Path> files(Path pods) throws Exception {
        try (Stream<Path> s = Files.list(pods)) {
            return s.filter(p -> !p.getFileName().toString().equals("filler")).toList();
        }
    }
}
