package io.cmdemux.daemon;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Which daemon serves a control socket: the one that holds a lock on a file beside it ({@code SOCKET.lock}). The
 * kernel lets go of a process's lock when the process ends, SIGKILL included, so a daemon in standby that waits for
 * the lock takes over as soon as the one serving is gone, and a second daemon started by mistake is refused instead
 * of taking the host socket's path from under the first. A POSIX record lock (fcntl), which is what
 * {@link FileChannel#lock} takes: the process must not open the file again while it holds it, since closing any
 * descriptor of the file would let the lock go.
 */
final class ServeLock implements Closeable {
    /**
     * The lock files this process holds. A second attempt in the same process must not even open the file: closing
     * that descriptor after the refusal would let go of the first one's lock.
     */
    private static final java.util.Set<Path> HELD = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private final Path key;
    private final FileChannel channel;
    private final FileLock lock;
    private final long tookOverFrom;

    private ServeLock(Path key, FileChannel channel, FileLock lock, long tookOverFrom) {
        this.key = key;
        this.channel = channel;
        this.lock = lock;
        this.tookOverFrom = tookOverFrom;
    }

    /** The pid of the daemon this one waited for (-1: one whose pid was not readable), or 0 when it did not wait. */
    long tookOverFrom() {
        return tookOverFrom;
    }

    /** A holder's pid as the messages say it: "unknown" when it could not be read. */
    static String pidText(long holder) {
        return holder > 0 ? Long.toString(holder) : "unknown";
    }

    /** The lock file of a host socket. */
    static Path besideSocket(Path hostSocket) {
        return hostSocket.resolveSibling(hostSocket.getFileName() + ".lock");
    }

    /**
     * The lock, at once; or, if another daemon holds it and {@code standby} is set, once that daemon is gone.
     *
     * @param waiting called once before a standby waits, with the pid the holder wrote into the file
     * @throws IOException when another daemon holds it and {@code standby} is not set, saying which one
     */
    static ServeLock take(Path file, boolean standby, java.util.function.LongConsumer waiting) throws IOException {
        Path key = file.toAbsolutePath().normalize();
        if (!HELD.add(key)) {
            throw new IOException("this process already serves the control socket of " + file);
        }
        try {
            return lock(key, file, standby, waiting);
        } catch (IOException | RuntimeException e) {
            HELD.remove(key);
            throw e;
        }
    }

    private static ServeLock lock(Path key, Path file, boolean standby, java.util.function.LongConsumer waiting)
            throws IOException {
        Files.createDirectories(key.getParent());
        FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.READ);
        try {
            FileLock l = ch.tryLock();
            long holder = 0;
            if (l == null) {
                holder = holder(ch);
                if (!standby) {
                    throw new IOException("another cmdemux serve (pid " + pidText(holder)
                            + ") serves this control socket and holds " + file + "; stop it first, or start this"
                            + " one with --standby to take over when it ends");
                }
                waiting.accept(holder);
                l = ch.lock(); // blocks in fcntl(F_SETLKW) until the holder's process has ended
            }
            // the pid, for the message above and for an operator: the lock itself is what counts
            ch.truncate(0);
            ch.write(ByteBuffer.wrap((ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII)), 0);
            return new ServeLock(key, ch, l, holder);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /** The pid the holder wrote, or -1 (none yet: it may be between its truncate and its write). */
    private static long holder(FileChannel ch) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(24);
        ch.read(b, 0);
        String s = new String(b.array(), 0, b.position(), StandardCharsets.US_ASCII).trim();
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    @Override
    public void close() throws IOException {
        try {
            lock.release();
        } finally {
            channel.close();
            HELD.remove(key);
        }
    }
}
