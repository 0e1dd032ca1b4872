package io.cmdemux.observer;

import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.NetnsState;
import io.cmdemux.namespaces.SnapshotFile;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.netdev.MalformedException;
import io.cmdemux.netdev.NlMessage;
import io.cmdemux.observer.nldev.NldevDump;
import io.cmdemux.observer.trace.KernelEvent;
import io.cmdemux.observer.trace.MalformedTraceLineException;
import io.cmdemux.observer.trace.TraceLineParser;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A kernel-lab fixture as the observer reads it (it/fixtures/lab/README.md): tracefs/trace.txt with the formats
 * of its events, the nldev dumps rdma/NS.pcap, rdma/pids.tsv (each cm_id owner's namespace, as the guest read
 * /proc/PID/ns/net) and netns.tsv (each namespace's inode).
 */
public final class LabRecording {
    private final Path dir;

    public LabRecording(Path dir) {
        this.dir = dir;
    }

    public boolean hasTrace() {
        return Files.isRegularFile(dir.resolve("tracefs/trace.txt"));
    }

    public Path trace() {
        return dir.resolve("tracefs/trace.txt");
    }

    /** expected.tsv: local comm ID to outcome (deliver:NS, reject:N, drop), as derive-expected wrote it. */
    public Map<String, String> expected() throws IOException {
        Map<String, String> out = new LinkedHashMap<>();
        for (String line : Files.readAllLines(dir.resolve("expected.tsv"), StandardCharsets.UTF_8)) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.split("\t");
            out.put(f[0].trim().toLowerCase(), f[2].trim());
        }
        return out;
    }

    /**
     * expected.tsv's requests that a live watch can see: those an event of the passive side names (its kprobe or
     * ib_cm's answer, remote_id=). Live, the requester's events are on another host; a REQ that ib_cm dropped
     * before calling rdma_cm leaves no event with its comm ID, so it is invisible there (a lab replay sees it by
     * the requester's icm_send_req). The others are returned in {@code invisible}.
     */
    public Map<String, String> expectedLive(Map<String, String> invisible) throws IOException {
        String trace = Files.readString(trace(), StandardCharsets.US_ASCII);
        Map<String, String> out = new LinkedHashMap<>();
        expected().forEach((id, label) -> {
            String decimal = Long.toString(Long.parseLong(id.substring(2), 16));
            (trace.contains("remote_id=" + decimal + " ") ? out : invisible).put(id, label);
        });
        return out;
    }

    public RejectReasons rejectReasons() throws IOException {
        Path f = dir.resolve("tracefs/formats/" + FeatureCheck.IB_CM_EVENTS + "/icm_send_rej");
        return RejectReasons.fromFormat(Files.readString(f, StandardCharsets.US_ASCII));
    }

    /** The nldev dumps of every namespace, merged (in shared mode each namespace sees every device). */
    public NldevDump nldev(List<String> skipped) throws IOException {
        List<NlMessage> all = new ArrayList<>();
        try (Stream<Path> s = Files.list(dir.resolve("rdma"))) {
            for (Path p : s.filter(f -> f.toString().endsWith(".pcap")).sorted().toList()) {
                try {
                    for (byte[] m : SnapshotFile.readNetlinkPcap(p)) {
                        all.add(NlMessage.of(m));
                    }
                } catch (MalformedException e) {
                    skipped.add(p.getFileName() + ": " + e.getMessage());
                }
            }
        }
        return NldevDump.of(all, skipped);
    }

    /** pid to namespace, from rdma/pids.tsv and netns.tsv. */
    public PidNamespaces pids() throws IOException {
        Map<String, Long> inodes = new HashMap<>();
        for (String line : Files.readAllLines(dir.resolve("netns.tsv"), StandardCharsets.UTF_8)) {
            String[] f = line.split("\t");
            if (!line.startsWith("#") && f.length >= 2) {
                inodes.put(f[0], Long.parseLong(f[1].trim()));
            }
        }
        Map<Integer, NetnsRef> byPid = new HashMap<>();
        for (String line : Files.readAllLines(dir.resolve("rdma/pids.tsv"), StandardCharsets.UTF_8)) {
            String[] f = line.split("\t");
            if (line.startsWith("#") || f.length < 2) {
                continue;
            }
            Long ino = inodes.get(f[1]);
            byPid.put(Integer.parseInt(f[0].trim()), new NetnsRef(ino == null ? 0 : ino, List.of(f[1])));
        }
        return pid -> Optional.ofNullable(byPid.get(pid));
    }

    /** Replays the trace through a correlator: every request of the recording, in the order they settled. */
    public Replay replay() throws IOException {
        Correlator c = new Correlator(rejectReasons(), true);
        TraceLineParser parser = new TraceLineParser();
        List<KernelRequest> out = new ArrayList<>();
        Map<String, Long> malformed = new LinkedHashMap<>();
        for (String line : Files.readAllLines(trace(), StandardCharsets.US_ASCII)) {
            KernelEvent e;
            try {
                e = parser.parse(line);
            } catch (MalformedTraceLineException ex) {
                malformed.merge(ex.reason(), 1L, Long::sum);
                continue;
            }
            if (e != null) {
                out.addAll(c.accept(e));
            }
        }
        out.addAll(c.finish());
        return new Replay(out, malformed, c.skips(), c.lostEvents());
    }

    /** The requests of a replayed recording, and what was skipped on the way. */
    public record Replay(List<KernelRequest> requests, Map<String, Long> malformed, Map<String, Long> skips,
            long lostEvents) {}

    /** The recording as the live kernel: trace.txt's lines as trace_pipe's, its nldev dumps as the socket's. */
    public KernelWatch.Source source() throws IOException {
        List<String> skipped = new ArrayList<>();
        NldevDump dump = nldev(skipped);
        if (!skipped.isEmpty()) {
            throw new IOException(dir + ": unreadable nldev dumps: " + skipped);
        }
        BufferedReader lines = Files.newBufferedReader(trace(), StandardCharsets.US_ASCII);
        return new KernelWatch.Source() {
            @Override
            public String readLine() throws IOException {
                return lines.readLine();
            }

            @Override
            public NldevDump dump() {
                return dump;
            }

            @Override
            public void close() throws IOException {
                lines.close();
            }
        };
    }

    /** rdma/pids.tsv, as the guest read /proc/PID/ns/net, as the namespaces of {@code topology} with those inodes. */
    public KernelWatch.Owners owners(TopologySnapshot topology) throws IOException {
        PidNamespaces byPid = pids();
        return new KernelWatch.Owners() {
            @Override
            public void saw(NldevDump dump) {}

            @Override
            public NetnsId of(int pid) {
                return byPid.of(pid).flatMap(ref -> topology.namespaces().stream()
                        .map(NetnsState::id).filter(id -> id.inode() == ref.inode())
                        .findFirst()).orElse(null);
            }
        };
    }
}
