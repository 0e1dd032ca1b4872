package io.cmdemux.pods;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Registrations as files, one JSON file per (network, container, ifname), in a root-only
 * directory under /run: they outlive a daemon restart and vanish at reboot with the namespaces
 * they describe. The daemon writes here, and so does the CNI fallback while the daemon is down;
 * the daemon checks every file against the kernel when it loads it.
 */
public final class PodStore {
    /** Next to the control socket: /run/cmdemux/cmdemux.sock → /run/cmdemux/pods. */
    public static final String DIR_NAME = "pods";
    private static final AtomicLong TMP_SEQ = new AtomicLong();
    /** In a holder: building an ObjectMapper costs a one-shot verb some 40 ms, and most find no file to read. */
    private static final class Json {
        static final ObjectMapper MAPPER = new ObjectMapper();
    }

    /** A state file is a few hundred bytes; refuse to read anything absurd. */
    private static final long MAX_FILE = 64 * 1024;

    private final Path dir;

    public PodStore(Path dir) {
        this.dir = dir;
    }

    /** The store that belongs to a control socket. */
    public static PodStore besideSocket(Path controlSocket) {
        Path parent = controlSocket.toAbsolutePath().getParent();
        return new PodStore((parent == null ? Path.of("/") : parent).resolve(DIR_NAME));
    }

    public Path dir() {
        return dir;
    }

    public record Loaded(List<PodRegistration> registrations, List<String> problems) {
        public Loaded {
            registrations = List.copyOf(registrations);
            problems = List.copyOf(problems);
        }
    }

    /** Every readable registration; unreadable files are reported, not fatal. A missing directory holds none. */
    public Loaded readAll() {
        List<PodRegistration> out = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return new Loaded(out, problems);
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*.json")) {
            for (Path p : ds) {
                try {
                    if (Files.size(p) > MAX_FILE) {
                        problems.add(p + ": larger than " + MAX_FILE + " bytes");
                        continue;
                    }
                    JsonNode n = Json.MAPPER.readTree(Files.readAllBytes(p));
                    PodRegistration r = PodJson.registration(n);
                    if (!p.getFileName().toString().equals(fileName(r.key()))) {
                        problems.add(p + ": holds " + r.key() + ", which belongs in " + fileName(r.key()));
                        continue;
                    }
                    out.add(r);
                } catch (NoSuchFileException e) {
                    // removed by a DEL while we listed the directory
                } catch (IOException | IllegalArgumentException e) {
                    problems.add(p + ": " + e.getMessage());
                }
            }
        } catch (IOException e) {
            problems.add(dir + ": " + e.getMessage());
        }
        return new Loaded(out, problems);
    }

    /** Writes (or replaces) one registration atomically: readers see the old file or the new one. */
    public void write(PodRegistration r) throws IOException {
        Files.createDirectories(dir);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        Path target = dir.resolve(fileName(r.key()));
        // Not Files.createTempFile: its SecureRandom cost the first ADD after a start tens of ms (issue 22).
        // The pid keeps the daemon's and a fallback plugin's names apart; CREATE_NEW, a stale one.
        Path tmp = dir.resolve(".pod-" + ProcessHandle.current().pid() + "-" + TMP_SEQ.incrementAndGet() + ".tmp");
        try {
            byte[] json = bytes(r);
            try (FileChannel c = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                ByteBuffer b = ByteBuffer.wrap(json);
                while (b.hasRemaining()) {
                    c.write(b);
                }
                // on disk before the rename, so that a crash leaves the old file or the whole new one
                c.force(true);
            }
            // a rename inside one directory is atomic on every POSIX file system
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /**
     * Makes a registration's file name and contents without writing them: the daemon's warm-up, so that
     * the first ADD does not pay for the message digest's and Jackson's first use.
     */
    public static void warmUp(PodRegistration r) throws IOException {
        fileName(r.key());
        bytes(r);
    }

    private static byte[] bytes(PodRegistration r) throws IOException {
        return Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(PodJson.json(r))
                .getBytes(StandardCharsets.UTF_8);
    }

    /** @return whether a file was there */
    public boolean delete(PodKey key) throws IOException {
        return Files.deleteIfExists(dir.resolve(fileName(key)));
    }

    /**
     * The file name for a key: a hash, because network names and container IDs may hold
     * characters a file name cannot, and two keys must never share a file.
     */
    static String fileName(PodKey key) {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            String identity = key.network() + "\0" + key.containerId() + "\0" + key.ifname();
            byte[] h = d.digest(identity.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(h, 0, 16) + ".json";
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
