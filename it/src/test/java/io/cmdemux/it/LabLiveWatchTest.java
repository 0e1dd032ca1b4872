package io.cmdemux.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cmdemux.observer.LabRecording;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What `cmdemux watch --json` printed live in the kernel lab's guest while a scenario ran (CMDEMUX_LAB_WATCH=1,
 * committed as watch/live.jsonl by scripts/lab/assemble): every request it reported must carry the outcome
 * derive-expected found independently (expected.tsv, from the listeners' logs and the wire), one record per request
 * and no other; `watch --lab` replaying the same fixture's tracefs/ and rdma/ recordings must report the same; and
 * the observer must have removed its tracefs instance and kprobe when it exited (watch/left-after-exit.txt).
 */
class LabLiveWatchTest {
    private static final Path LAB = Path.of("fixtures/lab");
    private static final ObjectMapper JSON = new ObjectMapper();

    static List<Path> fixtures() throws IOException {
        try (Stream<Path> s = Stream.concat(Files.list(LAB), Files.list(LAB.resolve("rxe-limits")))) {
            List<Path> all = s.filter(d -> Files.isRegularFile(d.resolve("watch/live.jsonl"))).sorted().toList();
            assertThat(all).as("lab fixtures with watch/live.jsonl under %s", LAB.toAbsolutePath()).isNotEmpty();
            return all;
        }
    }

    /** One watch --json record in expected.tsv's vocabulary (the same as Observation.label()). */
    static String label(JsonNode o) {
        String outcome = o.path("outcome").asText();
        return switch (outcome) {
            case "deliver" -> "deliver:" + (o.path("namespace").isObject()
                    && o.path("namespace").path("names").size() > 0
                    ? o.path("namespace").path("names").get(0).asText()
                    : o.path("namespace").isObject() ? "netns:" + o.path("namespace").path("inode").asLong() : "?");
            case "reject" -> "reject:" + o.path("rejectReason").asInt();
            default -> outcome;
        };
    }

    /** localCommId to label; a comm ID reported twice fails (the kernel decides once per request). */
    static Map<String, String> records(String jsonl, String what) throws IOException {
        Map<String, String> out = new LinkedHashMap<>();
        for (String line : jsonl.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            JsonNode o = JSON.readTree(line);
            String id = o.path("localCommId").asText().toLowerCase();
            assertThat(out.put(id, label(o))).as("%s: comm ID %s reported twice", what, id).isNull();
        }
        return out;
    }

    /**
     * Live, a request is seen through the passive side's events alone (the requester is on another host): one
     * that ib_cm dropped before rdma_cm leaves none, so expected.tsv's requests that no passive-side event names
     * are left out, and each of them must be a drop.
     */
    @ParameterizedTest
    @MethodSource("fixtures")
    void theLiveRecordsEqualExpectedTsv(Path dir) throws Exception {
        Map<String, String> live = live(dir);
        Map<String, String> invisible = new LinkedHashMap<>();
        Map<String, String> visible = new LabRecording(dir).expectedLive(invisible);
        assertThat(invisible.values()).as("%s: requests no passive-side event names", dir.getFileName())
                .allMatch("drop"::equals);
        assertThat(live).as("%s: cmdemux watch --json live in the guest vs. expected.tsv", dir.getFileName())
                .containsExactlyInAnyOrderEntriesOf(visible);
    }

    @ParameterizedTest
    @MethodSource("fixtures")
    void theLiveRecordsEqualTheReplayOfTheSameFixture(Path dir) throws Exception {
        Proc.Run r = Proc.run(Binaries.cmdemux(null, "watch", "--json", "--lab", dir.toString()), 120_000);
        Map<String, String> replayed = records(r.out(), "watch --lab " + dir);
        Map<String, String> invisible = new LinkedHashMap<>();
        new LabRecording(dir).expectedLive(invisible);
        replayed.keySet().removeAll(invisible.keySet()); // the replay sees them by the requester's events
        Map<String, String> live = live(dir);
        assertThat(replayed).as("%s: watch --lab replay vs. the live records%n%s", dir.getFileName(), r.err())
                .containsExactlyInAnyOrderEntriesOf(live);
        // The live observer's own verdict on cmdemux's prediction, where it had one, is the replay's too. Live, a
        // request ib_cm answered without rdma_cm (REJ 8: no listener) never reaches the kprobe, so it has no device
        // and port and no prediction (agree null); the replay predicts it from cm.pcap.
        Map<String, String> liveAgree = agreeFields(Files.readString(dir.resolve("watch/live.jsonl")));
        Map<String, String> replayAgree = agreeFields(r.out());
        liveAgree.values().removeIf("null"::equals);
        replayAgree.keySet().retainAll(liveAgree.keySet());
        assertThat(replayAgree).as("%s: agree per request, replay vs. live", dir.getFileName())
                .containsExactlyInAnyOrderEntriesOf(liveAgree);
    }

    @ParameterizedTest
    @MethodSource("fixtures")
    void theObserverRemovedItsInstanceAndKprobeAtExit(Path dir) throws Exception {
        Path left = dir.resolve("watch/left-after-exit.txt");
        assertThat(left).exists();
        List<String> lines = new ArrayList<>();
        for (String l : Files.readAllLines(left, StandardCharsets.UTF_8)) {
            if (!l.isBlank()) {
                lines.add(l.trim());
            }
        }
        assertThat(lines).as("%s: tracefs instances and cmdemux/ kprobes left after watch exited", dir.getFileName())
                .noneMatch(l -> l.equals("cmdemux") || l.contains("cmdemux/"));
        assertThat(Files.readString(dir.resolve("watch/live.err"))).as("%s: live watch stderr", dir.getFileName())
                .doesNotContain("skipping trace lines").doesNotContain("lost");
    }

    private static Map<String, String> live(Path dir) throws IOException {
        return records(Files.readString(dir.resolve("watch/live.jsonl")), dir + "/watch/live.jsonl");
    }

    private static Map<String, String> agreeFields(String jsonl) throws IOException {
        Map<String, String> out = new LinkedHashMap<>();
        for (String line : jsonl.split("\n")) {
            if (!line.isBlank()) {
                JsonNode o = JSON.readTree(line);
                out.put(o.path("localCommId").asText().toLowerCase(), o.path("agree").asText());
            }
        }
        return out;
    }
}
