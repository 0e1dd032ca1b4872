package io.cmdemux.observer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real recording with bad input mixed in: lines cut short, garbled, an event format of another kernel, and a
 * full ring's lost-events marker. Each is a counted, named skip; the requests come out as before.
 */
class BadTraceInputTest {
    @TempDir
    Path tmp;

    @Test
    void badLinesAreCountedByReasonAndTheRequestsStayRight() throws Exception {
        Path src = LabFixtures.LAB.resolve("ps-ib-pod");
        Path dir = tmp.resolve("ps-ib-pod");
        copy(src, dir);
        List<String> lines = new ArrayList<>(Files.readAllLines(src.resolve("tracefs/trace.txt"),
                StandardCharsets.US_ASCII));
        String some = lines.stream().filter(l -> l.contains(" icm_send_req: ")).findFirst().orElseThrow();
        lines.add(20, some.substring(0, 25));
        lines.add(21, some.replace("local_id=", "local_id=zz"));
        lines.add(22, some.replace("local_id=", "lcl="));
        lines.add(23, "CPU:1 [LOST 7 EVENTS]");
        Files.write(dir.resolve("tracefs/trace.txt"), lines, StandardCharsets.US_ASCII);

        LabRecording rec = new LabRecording(dir);
        LabRecording.Replay r = rec.replay();
        assertThat(r.malformed().values().stream().mapToLong(Long::longValue).sum()).isEqualTo(3);
        assertThat(r.malformed().keySet()).anyMatch(k -> k.contains("unknown format of ib_cm event icm_send_req"));
        assertThat(r.lostEvents()).isEqualTo(7);
        Observations obs = new Observations(rec.nldev(new ArrayList<>()), null, rec.pids());
        Map<String, String> got = new LinkedHashMap<>();
        for (KernelRequest k : r.requests()) {
            got.put(k.localCommIdText(), obs.of(k).label());
        }
        assertThat(got).containsExactlyInAnyOrderEntriesOf(LabFixtures.expected(src));
    }

    private static void copy(Path from, Path to) throws Exception {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : s.toList()) {
                Path t = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(t);
                } else {
                    Files.copy(p, t);
                }
            }
        }
    }
}
