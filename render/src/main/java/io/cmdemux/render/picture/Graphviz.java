package io.cmdemux.render.picture;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Renders DOT to SVG with Graphviz's {@code dot}, the one runtime dependency of the svg format
 * (Debian package graphviz). The edge between the pure pictures and the outside world.
 */
public final class Graphviz {
    public static final String PACKAGE = "graphviz";

    /** Graphviz is missing, or failed; the message says what to do. */
    public static final class GraphvizException extends Exception {
        private static final long serialVersionUID = 1L;

        public GraphvizException(String message) {
            super(message);
        }
    }

    private final Path dot;
    private final long timeoutMillis;

    private Graphviz(Path dot, long timeoutMillis) {
        this.dot = dot;
        this.timeoutMillis = timeoutMillis;
    }

    /**
     * Finds {@code dot} on {@code path} (a PATH value).
     *
     * @throws GraphvizException naming the Debian package when there is none
     */
    public static Graphviz find(String path, long timeoutMillis) throws GraphvizException {
        return locate(path).map(p -> new Graphviz(p, timeoutMillis)).orElseThrow(() -> new GraphvizException(
                "the svg format needs Graphviz's `dot`, which is not on the PATH: install the Debian package " + PACKAGE
                        + " (apt-get install -y " + PACKAGE + "), or use --format dot and render it elsewhere"));
    }

    /** {@code dot} on this process's PATH, with a generous timeout for big hosts. */
    public static Graphviz fromEnvironment() throws GraphvizException {
        return find(System.getenv().getOrDefault("PATH", "/usr/bin:/bin"), 120_000);
    }

    static Optional<Path> locate(String path) {
        for (String dir : path.split(":")) {
            if (dir.isEmpty()) {
                continue;
            }
            Path p = Path.of(dir, "dot");
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /** DOT in, SVG out; the SVG's {@code <title>}s carry the tooltips (see {@link SvgTitles}). */
    public String svg(String dotSource) throws GraphvizException {
        return SvgTitles.fromTooltips(run(List.of(dot.toString(), "-Tsvg"), dotSource));
    }

    private String run(List<String> argv, String input) throws GraphvizException {
        Process p;
        try {
            p = new ProcessBuilder(argv).start();
        } catch (IOException e) {
            throw new GraphvizException("cannot run " + dot + ": " + e.getMessage() + " (Debian package "
                    + PACKAGE + ")");
        }
        // Both pipes drained while we write, so a big graph cannot stall either side.
        CompletableFuture<byte[]> out = CompletableFuture.supplyAsync(() -> drain(p.getInputStream()));
        CompletableFuture<byte[]> err = CompletableFuture.supplyAsync(() -> drain(p.getErrorStream()));
        try (OutputStream in = p.getOutputStream()) {
            in.write(input.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            // dot exited early; its stderr below says why
        }
        try {
            if (!p.waitFor(timeoutMillis, TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new GraphvizException("dot did not finish within " + timeoutMillis / 1000
                        + " s; restrict the picture with --namespace NAME or --port DEV/N");
            }
            String stderr = new String(err.get(), StandardCharsets.UTF_8).strip();
            if (p.exitValue() != 0) {
                throw new GraphvizException("dot -Tsvg failed (exit " + p.exitValue() + "): " + stderr);
            }
            return new String(out.get(), StandardCharsets.UTF_8);
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new GraphvizException("interrupted while dot was rendering");
        } catch (ExecutionException e) {
            throw new GraphvizException("reading dot's output: " + e.getCause().getMessage());
        }
    }

    private static byte[] drain(InputStream in) {
        try (in) {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            in.transferTo(b);
            return b.toByteArray();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
