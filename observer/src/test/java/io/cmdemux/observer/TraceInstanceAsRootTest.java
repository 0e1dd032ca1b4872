package io.cmdemux.observer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Our tracefs instance on this machine's real tracefs, mounted for the test at a directory of its own (tracefs
 * is one superblock: the instances are the kernel's, wherever it is mounted). Needs root and a kernel with
 * tracefs; it fails, naming them, without.
 */
class TraceInstanceAsRootTest {
    private static Path mount;
    private static final String NAME = "cmdemux-test-" + ProcessHandle.current().pid();

    @BeforeAll
    static void mountTracefs() throws Exception {
        assertThat(System.getProperty("user.name")).as("this test needs root (it mounts tracefs)").isEqualTo("root");
        mount = Files.createTempDirectory("cmdemux-tracefs");
        Process p = new ProcessBuilder("mount", "-t", "tracefs", "nodev", mount.toString()).redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as("mount -t tracefs (a kernel with CONFIG_TRACING): %s", out).isZero();
    }

    @AfterAll
    static void unmount() throws Exception {
        if (mount != null) {
            new ProcessBuilder("umount", mount.toString()).start().waitFor();
            Files.deleteIfExists(mount);
        }
    }

    private static String read(Path p) throws Exception {
        return Files.readString(p, StandardCharsets.US_ASCII).strip();
    }

    @Test
    void theInstanceIsOursAloneAndGoesAwayAtClose() throws Exception {
        String globalEvents = read(mount.resolve("set_event"));
        String globalOn = read(mount.resolve("tracing_on"));
        TraceInstance t = TraceInstance.start(mount, NAME, List.of("oom"), null);
        Path dir = mount.resolve("instances").resolve(NAME);
        try {
            checkInstance(t, dir, globalEvents, globalOn);
        } finally {
            t.close();
        }
        assertThat(dir).doesNotExist();
    }

    private static void checkInstance(TraceInstance t, Path dir, String globalEvents, String globalOn)
            throws Exception {
        assertThat(t.directory()).isEqualTo(dir);
        assertThat(read(dir.resolve("events/oom/enable"))).isEqualTo("1");
        assertThat(read(dir.resolve("tracing_on"))).isEqualTo("1");
        // The kernel rounds the size up to whole sub-buffers (4099 on this machine for 4096).
        assertThat(Integer.parseInt(read(dir.resolve("buffer_size_kb")))).isBetween(4096, 4096 + 64);
        // The global buffer's settings are untouched.
        assertThat(read(mount.resolve("set_event"))).isEqualTo(globalEvents);
        assertThat(read(mount.resolve("tracing_on"))).isEqualTo(globalOn);
    }

    @Test
    void anInstanceLeftByACrashIsReplacedAtTheNextStart() throws Exception {
        Path dir = mount.resolve("instances").resolve(NAME + "-stale");
        Files.createDirectory(dir);
        Files.writeString(dir.resolve("buffer_size_kb"), "8\n");
        assertThat(Integer.parseInt(read(dir.resolve("buffer_size_kb")))).isLessThan(64);
        Files.writeString(dir.resolve("trace_marker"), "left by a crashed run\n");
        try (TraceInstance t = TraceInstance.start(mount, NAME + "-stale", List.of(), null)) {
            assertThat(Integer.parseInt(read(t.directory().resolve("buffer_size_kb")))).isGreaterThanOrEqualTo(4096);
            assertThat(Files.readString(t.directory().resolve("trace"))).doesNotContain("left by a crashed run");
        } finally {
            if (Files.isDirectory(dir)) {
                Files.delete(dir);
            }
        }
        assertThat(dir).doesNotExist();
    }

    @Test
    void aReaderBlockedInTracePipeIsWokenSoThatTheInstanceCanGo() throws Exception {
        TraceInstance t = TraceInstance.start(mount, NAME + "-pipe", List.of(), null);
        java.util.concurrent.atomic.AtomicReference<String> got = new java.util.concurrent.atomic.AtomicReference<>();
        Thread reader = new Thread(() -> {
            try (java.io.BufferedReader r = t.pipe()) {
                got.set(r.readLine());
            } catch (java.io.IOException e) {
                got.set("error: " + e);
            }
        });
        reader.start();
        Thread.sleep(300);
        long before = System.nanoTime();
        t.wakeReaders("cmdemux test: stopping");
        reader.join(5000);
        long after = System.nanoTime();
        assertThat(reader.isAlive()).as("the reader still blocks in trace_pipe").isFalse();
        assertThat(got.get()).contains("tracing_mark_write: cmdemux test: stopping");
        // The instance's clock is System.nanoTime's (the live watch's silence timeout compares the two).
        assertThat(read(t.directory().resolve("trace_clock"))).contains("[mono]");
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(" (\\d+)\\.(\\d{6}): ").matcher(got.get());
        assertThat(m.find()).as("a timestamp in %s", got.get()).isTrue();
        long stamp = Long.parseLong(m.group(1)) * 1_000_000_000L + Long.parseLong(m.group(2)) * 1000;
        assertThat(stamp).isBetween(before - 1000, after);
        t.close();
        assertThat(t.directory()).doesNotExist();
    }

    @Test
    void anEventSystemTheKernelLacksIsATypedErrorAndLeavesNoInstance() throws Exception {
        Path dir = mount.resolve("instances").resolve(NAME + "-missing");
        try {
            TraceInstance.start(mount, NAME + "-missing", List.of(FeatureCheck.IB_CM_EVENTS), null).close();
            assertThat(mount.resolve("events").resolve(FeatureCheck.IB_CM_EVENTS))
                    .as("this kernel has ib_cm's events, so the error cannot be shown here").doesNotExist();
        } catch (java.nio.file.NoSuchFileException e) {
            assertThat(e.getMessage()).contains("ib_cma");
        }
        assertThat(dir).doesNotExist();
    }
}
