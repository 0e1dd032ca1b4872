package io.cmdemux.namespaces;

import io.cmdemux.netdev.MalformedException;
import io.cmdemux.netdev.NetlinkSocket;
import io.cmdemux.netdev.NlMessage;
import io.cmdemux.netdev.PcapReader;
import io.cmdemux.netdev.PcapWriter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/**
 * The on-disk form of a host's state, the same layout as a kernel-lab fixture directory:
 * <pre>
 * netns.tsv          name TAB inode TAB nsid-in-host (or -); the host is "init", an unnamed
 *                    namespace "@INODE"; a namespace with several names has several lines
 * rtnl/NAME.pcap     LINKTYPE_NETLINK records: the kernel's dump messages for that namespace
 * ...                other modules' entries (sysfs/ for RDMA devices)
 * </pre>
 * A snapshot file is that layout in a zip; a directory in that layout reads the same way.
 */
public final class SnapshotFile {
    public static final String NETNS_TSV = "netns.tsv";
    public static final String HOST_NAME = "init";

    private SnapshotFile() {}

    /** What was read: the host, its dumps, and the root for other modules' entries. */
    public record Contents(NetnsId host, List<NamespaceDump> dumps, Path root) {}

    /** Writes a zip with the dumps and any extra entries (path inside the zip → bytes). */
    public static void write(OutputStream out, NetnsId host, List<NamespaceDump> dumps, Map<String, byte[]> extra)
            throws IOException {
        try (ZipOutputStream zip = new ZipOutputStream(out)) {
            StringBuilder tsv = new StringBuilder("# name\tinode\tnsid-in-host\n");
            for (NamespaceDump d : dumps) {
                boolean isHost = d.id().equals(host);
                List<String> names = new ArrayList<>();
                if (isHost) {
                    names.add(HOST_NAME);
                }
                names.addAll(d.names());
                if (names.isEmpty()) {
                    names.add("@" + d.id().inode());
                }
                for (String n : names) {
                    tsv.append(n).append('\t').append(d.id().inode()).append('\t')
                            .append(d.hostNsid() >= 0 ? Integer.toString(d.hostNsid()) : "-").append('\n');
                }
                zip.putNextEntry(new ZipEntry("rtnl/" + names.get(0) + ".pcap"));
                ByteArrayOutputStream pcap = new ByteArrayOutputStream();
                try (PcapWriter w = new PcapWriter(pcap, PcapWriter.LINKTYPE_NETLINK)) {
                    long now = System.currentTimeMillis() * 1000;
                    for (byte[] m : d.messages()) {
                        w.writeNetlink(now, NetlinkSocket.NETLINK_ROUTE, m);
                    }
                }
                zip.write(pcap.toByteArray());
                zip.closeEntry();
            }
            zip.putNextEntry(new ZipEntry(NETNS_TSV));
            zip.write(tsv.toString().getBytes(StandardCharsets.UTF_8));
            zip.closeEntry();
            for (Map.Entry<String, byte[]> e : extra.entrySet()) {
                zip.putNextEntry(new ZipEntry(e.getKey()));
                zip.write(e.getValue());
                zip.closeEntry();
            }
        }
    }

    /**
     * Opens a snapshot zip or a fixture directory. The returned root stays readable until the JVM
     * exits (a zip is mounted as a read-only file system).
     */
    public static Contents read(Path file) throws IOException, MalformedException {
        if (Files.isDirectory(file)) {
            return read(file, file);
        }
        if (!Files.isRegularFile(file)) {
            throw new IOException(file + ": no such snapshot file or directory");
        }
        FileSystem zfs;
        try {
            zfs = FileSystems.newFileSystem(file, (ClassLoader) null);
        } catch (RuntimeException | java.util.zip.ZipError e) {
            // The JDK's zip file system reads a hostile central directory with unchecked exceptions
            // (an ArrayIndexOutOfBoundsException, the fuzz campaign of 2026-12-02 found): not a zip.
            throw new IOException(file + ": not a readable zip (" + e + ")", e);
        }
        try {
            return read(file, zfs.getPath("/"));
        } catch (IOException | MalformedException | RuntimeException e) {
            // Nothing refers to the zip any more: unmount it (a caller
            // that tries file after file would keep them all open).
            zfs.close();
            throw e;
        }
    }

    private static Contents read(Path file, Path root) throws IOException, MalformedException {
        Path tsv = root.resolve(NETNS_TSV);
        if (!Files.isRegularFile(tsv)) {
            throw new IOException(file + ": not a snapshot (no " + NETNS_TSV + ")");
        }
        Map<Long, List<String>> names = new LinkedHashMap<>();
        Map<Long, Integer> nsids = new LinkedHashMap<>();
        Long hostInode = null;
        int lineNo = 0;
        for (String line : Files.readAllLines(tsv, StandardCharsets.UTF_8)) {
            lineNo++;
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.split("\t");
            if (f.length < 2) {
                throw new MalformedException(lineNo, NETNS_TSV + " line " + lineNo + ": expected name, inode and nsid");
            }
            long inode;
            try {
                inode = Long.parseLong(f[1].trim());
            } catch (NumberFormatException e) {
                throw new MalformedException(
                        lineNo, NETNS_TSV + " line " + lineNo + ": inode '" + f[1] + "' is not a number");
            }
            String name = f[0].trim();
            // A NUL cannot be in a file name: the name's capture path would throw InvalidPathException.
            if (name.contains("/") || name.indexOf('\0') >= 0 || name.isEmpty()) {
                throw new MalformedException(
                        lineNo, NETNS_TSV + " line " + lineNo + ": bad namespace name '" + name + "'");
            }
            names.computeIfAbsent(inode, k -> new ArrayList<>()).add(name);
            if (f.length > 2 && !f[2].trim().equals("-")) {
                try {
                    nsids.put(inode, Integer.parseInt(f[2].trim()));
                } catch (NumberFormatException e) {
                    throw new MalformedException(
                            lineNo, NETNS_TSV + " line " + lineNo + ": nsid '" + f[2] + "' is not a number");
                }
            }
            if (name.equals(HOST_NAME)) {
                hostInode = inode;
            }
        }
        if (hostInode == null) {
            throw new MalformedException(0, NETNS_TSV + " names no host namespace (\"" + HOST_NAME + "\")");
        }
        NetnsId host = new NetnsId(0, hostInode);
        List<NamespaceDump> dumps = new ArrayList<>();
        for (Map.Entry<Long, List<String>> e : names.entrySet()) {
            List<String> all = e.getValue();
            Path pcap = root.resolve("rtnl").resolve(all.get(0) + ".pcap");
            List<String> realNames = all.stream().filter(n -> !n.equals(HOST_NAME) && !n.startsWith("@")).toList();
            List<byte[]> messages = Files.isRegularFile(pcap) ? readNetlinkPcap(pcap) : List.of();
            dumps.add(new NamespaceDump(
                    new NetnsId(0, e.getKey()), realNames, nsids.getOrDefault(e.getKey(), -1), messages));
        }
        return new Contents(host, dumps, root);
    }

    /**
     * The kernel's messages in a LINKTYPE_NETLINK capture. One record may hold several messages
     * (nlmon captures whole skbs); requests from user space (NLM_F_REQUEST) are left out.
     */
    public static List<byte[]> readNetlinkPcap(Path pcap) throws IOException, MalformedException {
        List<byte[]> out = new ArrayList<>();
        try (InputStream in = Files.newInputStream(pcap); PcapReader r = new PcapReader(in)) {
            PcapReader.Record rec;
            while ((rec = r.next()) != null) {
                if (rec.linktype() != PcapWriter.LINKTYPE_NETLINK) {
                    throw new MalformedException((int) rec.fileOffset(), pcap.getFileName() + ": record " + rec.index()
                            + " has link type " + rec.linktype() + ", not LINKTYPE_NETLINK");
                }
                byte[] d = rec.data();
                if (d.length < PcapWriter.NETLINK_PSEUDO_HEADER) {
                    throw new MalformedException((int) rec.fileOffset(),
                            pcap.getFileName() + ": record " + rec.index() + " is shorter than its pseudo header");
                }
                ByteBuffer body = ByteBuffer.wrap(
                        d, PcapWriter.NETLINK_PSEUDO_HEADER, d.length - PcapWriter.NETLINK_PSEUDO_HEADER);
                if (isRequest(body)) {
                    // A request from user space: iproute2 sends its whole request buffer, so the
                    // record may hold zero padding after nlmsg_len. It carries no state; skip it.
                    continue;
                }
                for (NlMessage m : NlMessage.split(body)) {
                    if ((m.flags() & NlMessage.NLM_F_REQUEST) == 0) {
                        out.add(m.toBytes());
                    }
                }
            }
        }
        return out;
    }

    /** Whether the record's first message has NLM_F_REQUEST (nlmsg_flags at offset 6, host order). */
    private static boolean isRequest(ByteBuffer body) {
        if (body.remaining() < NlMessage.HEADER_SIZE) {
            return false;
        }
        int flags = body.duplicate().order(java.nio.ByteOrder.nativeOrder()).getShort(body.position() + 6) & 0xffff;
        return (flags & NlMessage.NLM_F_REQUEST) != 0;
    }
}
