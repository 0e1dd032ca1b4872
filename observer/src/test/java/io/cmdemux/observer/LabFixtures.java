package io.cmdemux.observer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** The kernel-lab fixtures that carry a tracefs recording (it/fixtures/lab, scripts/lab/record). */
public final class LabFixtures {
    public static final Path LAB = Path.of("..", "it", "fixtures", "lab");

    private LabFixtures() {}

    /**
     * Every fixture with a tracefs recording: the demux scenarios and rxe-limits/*, whose outcomes come from rxe's
     * receive path rather than the RDMA CM (what the kernel did is still what the observer must report, and the
     * prediction, made from the kprobe's fields and the kernel's own listeners, agrees there too).
     */
    public static List<Path> withTrace() throws IOException {
        try (Stream<Path> s = Stream.concat(Files.list(LAB), Files.list(LAB.resolve("rxe-limits")))) {
            List<Path> all = s.filter(d -> Files.isRegularFile(d.resolve("tracefs/trace.txt"))).sorted().toList();
            assertThat(all).as("lab fixtures with tracefs/trace.txt under %s", LAB.toAbsolutePath()).isNotEmpty();
            return all;
        }
    }

    /**
     * Whether the recording ran in exclusive RDMA netns mode, each device in one namespace: sysfs-ib_core/netns_mode
     * (the guest's ib_core parameter, "N") where the fixture has it, else the boot parameters its README names.
     */
    public static boolean exclusive(Path dir) throws IOException {
        Path mode = dir.resolve("sysfs-ib_core/netns_mode");
        if (Files.isRegularFile(mode)) {
            String m = Files.readString(mode).strip();
            assertThat(m).as("%s", mode).isIn("Y", "N");
            return m.equals("N");
        }
        String params = Files.readAllLines(dir.resolve("README.md")).stream()
                .filter(l -> l.startsWith("- Kernel parameters beyond the defaults:")).findFirst()
                .orElseThrow(() -> new AssertionError(dir + "/README.md names no kernel parameters"));
        return params.contains("ib_core.netns_mode=0");
    }

    /** expected.tsv: local comm ID to outcome, written by derive-expected from the listeners' logs and the wire. */
    public static Map<String, String> expected(Path dir) throws IOException {
        return new LabRecording(dir).expected();
    }
}
