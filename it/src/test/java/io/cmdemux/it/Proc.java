package io.cmdemux.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** A background process whose output lines are collected as they come. */
final class Proc implements AutoCloseable {
    final Process process;
    final List<String> out = new CopyOnWriteArrayList<>();
    final List<String> err = new CopyOnWriteArrayList<>();

    Proc(List<String> argv) throws IOException {
        process = new ProcessBuilder(argv).start();
        drain(process.getInputStream(), out);
        drain(process.getErrorStream(), err);
    }

    private static void drain(java.io.InputStream in, List<String> sink) {
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    sink.add(line);
                }
            } catch (IOException e) {
                sink.add("<read failed: " + e.getMessage() + ">");
            }
        });
        t.setDaemon(true);
        t.start();
    }

    /** Waits until some line of stdout or stderr satisfies the predicate. */
    boolean await(Predicate<String> line, long millis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + millis;
        while (System.currentTimeMillis() < deadline) {
            if (out.stream().anyMatch(line) || err.stream().anyMatch(line)) {
                return true;
            }
            if (!process.isAlive()) {
                return out.stream().anyMatch(line) || err.stream().anyMatch(line);
            }
            Thread.sleep(50);
        }
        return false;
    }

    /** Runs a command to completion and returns its stdout; stderr goes into the failure message. */
    static Run run(List<String> argv, long timeoutMillis) throws IOException, InterruptedException {
        try (Proc p = new Proc(argv)) {
            if (!p.process.waitFor(timeoutMillis, TimeUnit.MILLISECONDS)) {
                throw new AssertionError(String.join(" ", argv) + " did not finish in " + timeoutMillis + " ms");
            }
            Thread.sleep(50); // let the drain threads catch the last lines
            return new Run(p.process.exitValue(), String.join("\n", p.out), String.join("\n", p.err));
        }
    }

    record Run(int exit, String out, String err) {}

    /** SIGTERM, then SIGKILL after 5 s. */
    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroy();
            try {
                if (!process.waitFor(5, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
