package io.cmdemux.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Kernel mode against the real kernel: every demux scenario recorded by the kernel lab
 * (it/fixtures/lab, see scripts/lab) is replayed, and every request must get the decision the
 * kernel actually made. rxe-limits/ holds recordings that say nothing about the RDMA CM and is
 * not replayed here.
 */
class LabFixturesTest {
    private static final Path LAB = Path.of("fixtures/lab");

    static List<Path> scenarios() throws Exception {
        List<Path> out = new ArrayList<>();
        try (Stream<Path> s = Files.list(LAB)) {
            s.filter(p -> Files.isRegularFile(p.resolve("expected.tsv")) && Files.isRegularFile(p.resolve("cm.pcap")))
                    .sorted().forEach(out::add);
        }
        return out;
    }

    @Test
    void everyRecordedRequestGetsTheKernelsOwnDecision() throws Exception {
        List<Path> all = scenarios();
        assertThat(all).as("recorded scenarios under %s", LAB.toAbsolutePath()).isNotEmpty();
        List<String> args = new ArrayList<>(List.of("lab-check"));
        all.forEach(p -> args.add(p.toString()));
        Proc.Run r = Proc.run(Binaries.cmdemux(null, args.toArray(String[]::new)), 600_000);
        int requests = 0;
        for (String line : r.out().split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length == 4 && f[1].matches("\\d+")) {
                requests += Integer.parseInt(f[1]);
                // agreements plus differences documented in known-differences.tsv with the kernel function responsible
                assertThat(Integer.parseInt(f[2]) + Integer.parseInt(f[3])).as("requests explained in %s", f[0])
                        .isEqualTo(Integer.parseInt(f[1]));
            }
        }
        assertThat(r.exit()).as("lab-check output:%n%s%n%s", r.out(), r.err()).isZero();
        assertThat(requests).isPositive();
    }
}
