package io.cmdemux.observer;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The observer's own tracefs instance, instances/cmdemux: its own ring buffer, so that the global buffer and other
 * tools' instances are never touched. Created at start; an instance left by a crashed run is removed first.
 * kprobe definitions are global (kprobe_events); ours is in group cmdemux, enabled only in our instance, and
 * removed again at close.
 */
public final class TraceInstance implements AutoCloseable {
    public static final Path TRACEFS = Path.of("/sys/kernel/tracing");
    public static final String NAME = "cmdemux";
    private static final Logger LOG = LoggerFactory.getLogger(TraceInstance.class);
    /** Per CPU; 4 MiB holds minutes of CM events on a busy host between two reads. */
    private static final int BUFFER_KB = 4096;

    private final Path tracefs;
    private final Path dir;
    private final boolean probe;
    private boolean closed;

    private TraceInstance(Path tracefs, Path dir, boolean probe) {
        this.tracefs = tracefs;
        this.dir = dir;
        this.probe = probe;
    }

    /**
     * Makes the instance and enables the event systems in it, then the kprobe if one is given.
     *
     * @param systems event systems (ib_cma, rdma_cma, ...)
     * @param reqProbe the kprobe, or null to run on tracepoints alone
     */
    public static TraceInstance start(Path tracefs, String name, List<String> systems, ReqProbe reqProbe)
            throws IOException {
        Path dir = tracefs.resolve("instances").resolve(name);
        if (Files.isDirectory(dir)) {
            LOG.warn("removing the tracefs instance {} left by an earlier run", dir);
            removeInstance(tracefs, dir);
        }
        // tracefs makes a whole instance on mkdir (instance_mkdir); rmdir removes it with its buffers.
        Files.createDirectory(dir);
        TraceInstance t = new TraceInstance(tracefs, dir, reqProbe != null);
        try {
            write(dir.resolve("buffer_size_kb"), Integer.toString(BUFFER_KB));
            // CLOCK_MONOTONIC, the clock of System.nanoTime: the watch compares events' times with its own now.
            write(dir.resolve("trace_clock"), "mono");
            for (String sys : systems) {
                write(dir.resolve("events").resolve(sys).resolve("enable"), "1");
            }
            if (reqProbe != null) {
                appendLine(tracefs.resolve("kprobe_events"), ReqProbe.removal(), true);
                appendLine(tracefs.resolve("kprobe_events"), reqProbe.definition(), false);
                write(dir.resolve("events").resolve(ReqProbe.GROUP).resolve("enable"), "1");
            }
            write(dir.resolve("tracing_on"), "1");
        } catch (IOException e) {
            t.close();
            throw e;
        }
        return t;
    }

    public Path directory() {
        return dir;
    }

    /** The instance's trace_pipe: blocks for lines, and consumes what it returns. */
    public BufferedReader pipe() throws IOException {
        return Files.newBufferedReader(dir.resolve("trace_pipe"), StandardCharsets.US_ASCII);
    }

    /** The format file of an event in this instance (its print fmt names the symbolic values). */
    public Path format(String system, String event) {
        return dir.resolve("events").resolve(system).resolve(event).resolve("format");
    }

    private static void removeInstance(Path tracefs, Path dir) throws IOException {
        Path kp = dir.resolve("events").resolve(ReqProbe.GROUP).resolve("enable");
        if (Files.exists(kp)) {
            write(kp, "0");
        }
        Files.delete(dir);
        appendLine(tracefs.resolve("kprobe_events"), ReqProbe.removal(), true);
    }

    /**
     * Wakes a reader blocked in trace_pipe with a line in our own buffer (trace_marker): tracefs refuses to remove
     * an instance whose trace_pipe is open (EBUSY), so a reader must see it is time to stop and close it first.
     */
    public void wakeReaders(String why) {
        try {
            Files.writeString(dir.resolve("trace_marker"), why + "\n", StandardCharsets.US_ASCII,
                    StandardOpenOption.WRITE);
        } catch (IOException e) {
            LOG.debug("trace_marker of {}: {}", dir, e.getMessage());
        }
    }

    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        if (probe) {
            Path kp = dir.resolve("events").resolve(ReqProbe.GROUP).resolve("enable");
            if (Files.exists(kp)) {
                write(kp, "0");
            }
        }
        if (Files.isDirectory(dir)) {
            Files.delete(dir);
        }
        if (probe) {
            appendLine(tracefs.resolve("kprobe_events"), ReqProbe.removal(), true);
        }
    }

    private static void write(Path f, String value) throws IOException {
        try {
            Files.writeString(f, value + "\n", StandardCharsets.US_ASCII, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING);
        } catch (NoSuchFileException e) {
            throw new NoSuchFileException(f.toString(), null, "not in this kernel's tracefs");
        }
    }

    /** kprobe_events takes one command per write; O_APPEND keeps the other definitions. */
    private static void appendLine(Path f, String line, boolean ignoreMissing) throws IOException {
        try {
            Files.writeString(f, line + "\n", StandardCharsets.US_ASCII, StandardOpenOption.WRITE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            if (!ignoreMissing) {
                throw new IOException(f + ": the kernel refused '" + line + "': " + e.getMessage()
                        + " (see " + f.resolveSibling("error_log") + ")", e);
            }
        }
    }
}
