package io.cmdemux.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lock that says which daemon serves a control socket, held by another process as a serving daemon holds it:
 * the kernel's record lock, and what it does when that process is killed.
 */
class ServeLockTest {

    /**
     * In a JVM of its own, as another daemon: {@code FILE hold} takes the lock, says "held" and keeps it until
     * killed; {@code FILE try} says "took" or "refused: MESSAGE" and ends.
     */
    public static void main(String[] args) throws Exception {
        try (ServeLock l = ServeLock.take(Path.of(args[0]), false, pid -> { })) {
            System.out.println(args[1].equals("hold") ? "held" : "took");
            System.out.flush();
            if (args[1].equals("hold")) {
                Thread.sleep(Long.MAX_VALUE);
            }
        } catch (IOException e) {
            System.out.println("refused: " + e.getMessage());
        }
    }

    private static Process other(Path file, String what) throws IOException {
        return new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), ServeLockTest.class.getName(), file.toString(), what)
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    private static String firstLine(Process p) throws IOException {
        return new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)).readLine();
    }

    private static Process holder(Path file) throws IOException {
        Process p = other(file, "hold");
        assertThat(firstLine(p)).as("the holder's first line").isEqualTo("held");
        return p;
    }

    /** What another process is told when it tries to take the lock now. */
    private static String tryFromAnotherProcess(Path file) throws Exception {
        Process p = other(file, "try");
        String line = firstLine(p);
        p.waitFor(30, TimeUnit.SECONDS);
        return line;
    }

    @Test
    void aSecondDaemonIsRefusedNamingTheOneThatServes(@TempDir Path dir) throws Exception {
        Path file = ServeLock.besideSocket(dir.resolve("cmdemux.sock"));
        assertThat(file.getFileName().toString()).isEqualTo("cmdemux.sock.lock");
        Process p = holder(file);
        try {
            assertThatThrownBy(() -> ServeLock.take(file, false, pid -> { }))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("pid " + p.pid())
                    .hasMessageContaining("--standby");
            assertThat(Files.readString(file).trim()).as("the holder's pid is left as it was")
                    .isEqualTo(Long.toString(p.pid()));
        } finally {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aStandbyWaitsAndTakesOverWhenTheServingProcessIsKilled(@TempDir Path dir) throws Exception {
        Path file = ServeLock.besideSocket(dir.resolve("cmdemux.sock"));
        Process p = holder(file);
        AtomicLong waitedFor = new AtomicLong();
        CompletableFuture<ServeLock> standby = CompletableFuture.supplyAsync(() -> {
            try {
                return ServeLock.take(file, true, waitedFor::set);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        try {
            Thread.sleep(500);
            assertThat(standby).as("waits while the holder lives").isNotDone();
            assertThat(waitedFor.get()).as("told whom it waits for").isEqualTo(p.pid());
            p.destroyForcibly(); // SIGKILL: nothing of the holder runs, the kernel lets the lock go
            try (ServeLock taken = standby.get(10, TimeUnit.SECONDS)) {
                // not read here: a second descriptor of the file, closed, would let go of this process's lock
                String self = Long.toString(ProcessHandle.current().pid());
                assertThat(tryFromAnotherProcess(file)).as("another process finds it held by the standby, whose pid"
                        + " is in the file").startsWith("refused: ").contains("pid " + self);
                assertThatThrownBy(() -> ServeLock.take(file, false, pid -> { }))
                        .as("a second daemon in this process too").hasMessageContaining("already serves");
                assertThat(tryFromAnotherProcess(file)).as("and that refusal did not let the lock go")
                        .startsWith("refused: ");
            }
            assertThat(tryFromAnotherProcess(file)).as("closed, it is free again").isEqualTo("took");
        } finally {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            standby.cancel(true);
        }
    }
}
