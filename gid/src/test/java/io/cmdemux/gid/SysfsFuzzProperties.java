package io.cmdemux.gid;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.namespaces.TopologySnapshot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Malformed sysfs files (empty, garbage, missing ndev, deleted, oversized) never make the reader
 * throw, and the ones that break an entry are counted as problems.
 */
class SysfsFuzzProperties {
    private static final String ROCE_PORT = "class/infiniband/mlx5_1/ports/1";

    static Path copy(String fixture) {
        try {
            Path src = SysfsReaderTest.fixture(fixture);
            Path dst = Files.createTempDirectory("cmdx-sysfs");
            try (Stream<Path> all = Files.walk(src)) {
                for (Path p : all.toList()) {
                    Path to = dst.resolve(src.relativize(p).toString());
                    if (Files.isDirectory(p)) {
                        Files.createDirectories(to);
                    } else {
                        Files.copy(p, to);
                    }
                }
            }
            return dst;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void delete(Path root) {
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<String> files(Path root) {
        try (Stream<Path> all = Files.walk(root)) {
            return all.filter(Files::isRegularFile).map(p -> root.relativize(p).toString()).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Provide
    Arbitrary<byte[]> contents() {
        return Arbitraries.oneOf(Arbitraries.just(new byte[0]), Arbitraries.bytes().array(byte[].class).ofMaxSize(80),
                Arbitraries.strings().ofMaxLength(60).map(s -> s.getBytes(StandardCharsets.UTF_8)),
                Arbitraries.strings()
                        .withChars("0123456789abcdefx:/ \n")
                        .ofMaxLength(50)
                        .map(s -> s.getBytes(StandardCharsets.UTF_8)),
                Arbitraries.just(new byte[5000]));
    }

    @Property(tries = 100)
    void anyContentInAnyFileNeverThrows(@ForAll("fixtures") String fixture, @ForAll("contents") byte[] content,
            @ForAll("picks") int pick, @ForAll boolean deleteInstead) throws IOException {
        Path root = copy(fixture);
        try {
            List<String> all = files(root);
            Path victim = root.resolve(all.get(Math.floorMod(pick, all.size())));
            if (deleteInstead) {
                Files.delete(victim);
            } else {
                Files.write(victim, content);
            }
            TopologySnapshot s =
                    (fixture.equals("roce") ? SysfsReaderTest.roceTopology() : SysfsReaderTest.ibTopology()).build(1);
            SysfsReader.Result r = SysfsReader.read(SysfsLayout.live(root), s);
            assertThat(r.topology()).isNotNull();
            assertThat(r.problems()).allMatch(p -> !p.contains("\n"));
        } finally {
            delete(root);
        }
    }

    @Property(tries = 60)
    void garbageInAGidFileIsCountedAndTheSlotLeftOut(@ForAll("garbage") String garbage, @ForAll("roceIndex") int index)
            throws IOException {
        Path root = copy("roce");
        try {
            TopologySnapshot s = SysfsReaderTest.roceTopology().build(1);
            int before = SysfsReader.read(SysfsLayout.live(root), s).problems().size();
            Files.writeString(root.resolve(ROCE_PORT + "/gids/" + index), garbage);
            SysfsReader.Result r = SysfsReader.read(SysfsLayout.live(root), s);
            assertThat(r.problems()).hasSizeGreaterThan(before);
            assertThat(r.topology().port("mlx5_1", 1).orElseThrow().gid(index)).isEmpty();
        } finally {
            delete(root);
        }
    }

    @Property(tries = 40)
    void aRoceGidWithAnEmptyOrMissingNdevIsCounted(@ForAll("roceIndex") int index, @ForAll boolean empty)
            throws IOException {
        Path root = copy("roce");
        try {
            TopologySnapshot s = SysfsReaderTest.roceTopology().build(1);
            int before = SysfsReader.read(SysfsLayout.live(root), s).problems().size();
            Path ndev = root.resolve(ROCE_PORT + "/gid_attrs/ndevs/" + index);
            if (empty) {
                Files.writeString(ndev, "\n");
            } else {
                Files.delete(ndev);
            }
            SysfsReader.Result r = SysfsReader.read(SysfsLayout.live(root), s);
            assertThat(r.problems()).hasSizeGreaterThan(before).anyMatch(p -> p.contains("ndevs/" + index));
            assertThat(r.topology().port("mlx5_1", 1).orElseThrow().gid(index))
                    .hasValueSatisfying(e -> assertThat(e.ndev()).isNull());
        } finally {
            delete(root);
        }
    }

    @Provide
    Arbitrary<String> fixtures() {
        return Arbitraries.of("roce", "ib-ipoib");
    }

    @Provide
    Arbitrary<Integer> picks() {
        return Arbitraries.integers().between(0, 10_000);
    }

    @Provide
    Arbitrary<Integer> roceIndex() {
        return Arbitraries.integers().between(0, 5); // 6..9 are ambiguous already (see the fixture README)
    }

    @Provide
    Arbitrary<String> garbage() {
        // Never the 8x4-hex-digit form, which is a valid GID.
        return Arbitraries.oneOf(Arbitraries.just(""), Arbitraries.just("\n"),
                Arbitraries.strings().ofMinLength(1).ofMaxLength(38), Arbitraries.just("fe80::1"),
                Arbitraries.just("0000:0000"), Arbitraries.just("zzzz:0000:0000:0000:0000:0000:0000:0001"));
    }
}
