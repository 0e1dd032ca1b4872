package io.cmdemux.bench;

import io.cmdemux.control.client.ControlClient;
import io.cmdemux.control.protocol.DeliveredRequest;
import io.cmdemux.control.protocol.Frame;
import io.cmdemux.control.protocol.FrameCodec;
import io.cmdemux.control.protocol.ListenSpec;
import io.cmdemux.control.protocol.ListenerInfo;
import io.cmdemux.control.protocol.Rejection;
import io.cmdemux.control.protocol.RequestRefused;
import io.cmdemux.control.protocol.Wire;
import io.cmdemux.control.server.ControlLab;
import io.cmdemux.control.server.ControlServer;
import io.cmdemux.dataplane.consumer.Consumers;
import io.cmdemux.ingress.resolve.Listener;
import io.cmdemux.ingress.wire.PortSpace;
import io.cmdemux.netdev.InetAddresses;
import io.netty.buffer.Unpooled;
import io.netty.channel.unix.DomainSocketAddress;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.locks.LockSupport;

/**
 * Issue 20 §3 and §4 as a measurement: an honest consumer's latency, from the daemon's hand-over of a request to
 * the consumer holding it, in a quiet phase and beside noisy neighbours, in one run: hostile clients on the host
 * socket and on {@code @cmdemux} in another pod (1,000 idle connections, half frames, lengths of 2^32 - 1, random
 * bytes, a LISTEN/UNLISTEN flood, listens on the honest pod's address; from processes of their own), then
 * consumers that stop reading or hold thousands of unanswered requests, each given as many requests as the honest
 * one. Needs root.
 *
 * <p>Usage: NeighboursBench [SECONDS_PER_PHASE] [RATE]; prints one line per phase.
 */
public final class NeighboursBench {
    private static final String IP_BAD = "10.213.9.2";
    private static final String IP_GOOD = "10.213.9.3";

    private NeighboursBench() {}

    public static void main(String[] args) throws Exception {
        if (args.length == 2 && args[0].equals("attack-pod")) {
            Hostile.pod(args[1]);
            return;
        }
        if (args.length == 2 && args[0].equals("attack-host")) {
            Hostile.host(args[1]);
            return;
        }
        if (args.length == 2 && args[0].equals("consumer")) {
            Honest.OwnJvm.serve(args[1]);
            return;
        }
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        int rate = args.length > 1 ? Integer.parseInt(args[1]) : 5000;
        try (ControlLab lab = new ControlLab("nb")) {
            String bad = lab.pod("bad", IP_BAD + "/24");
            String good = lab.pod("good", IP_GOOD + "/24");
            // NB_MAX_CONNECTIONS=N: the namespaces' connection limit (default 128, the daemon's): with more than the
            // idle attack's 1,000, none of its connections is refused, which tells what the refusals cost
            int maxConnections = Integer.parseInt(System.getenv().getOrDefault("NB_MAX_CONNECTIONS", "128"));
            ControlServer.Config limits = ControlServer.Config.defaults().withLimits(maxConnections, 1024, 4096, 4096,
                    300);
            // NB_LOOPS=N: the control server's event loops (serve --control-threads; its default otherwise)
            int loops = Integer.parseInt(System.getenv().getOrDefault("NB_LOOPS",
                    String.valueOf(limits.eventLoopThreads())));
            lab.start(limits.withEventLoopThreads(loops), null);
            lab.server.onReject((trace, reason, ari, pd) -> { }); // the daemon's REJ path, without a wire
            lab.awaitReady(bad, IP_BAD);
            lab.awaitReady(good, IP_GOOD);
            // NB_CONSUMER=process: the honest consumer runs in a JVM of its own in its pod, as a real one would, so
            // that its garbage and its collections are not the daemon's (on this 2-core machine it then shares CPU 0
            // with the daemon as a process of its own: docs/RELIABILITY.md); otherwise in the daemon's JVM, with a
            // client event loop of its own, as all the figures were taken
            Honest honest = "process".equals(System.getenv("NB_CONSUMER")) ? new Honest.OwnJvm(lab, good)
                    : new Honest.InJvm(lab, good);
            Listener l = lab.listener(x -> x.port() == 7471);
            prewarm(lab, Integer.parseInt(System.getenv().getOrDefault("NB_PREWARM", "0")));
            Phase.run("warm-up (not counted)", lab, honest, l, seconds, rate, null, null);
            Phase.run("quiet", lab, honest, l, seconds, rate, null, null);
            Phase.run("hostile clients", lab, honest, l, seconds, rate, new Hostile(lab, bad), null);
            // The same attacks from new processes: the first time, the daemon's JIT compiles its refusal paths
            // on the way; the second says what the attacks cost a daemon that has met them before.
            Phase.run("hostile clients again", lab, honest, l, seconds, rate, new Hostile(lab, bad), null);
            // NB_HOSTILE_ROUNDS=N (default 2, at most 6): more rounds of the same attacks, to tell what the JIT still
            // compiles in the second from what the attacks cost a daemon that has compiled their paths
            int rounds = Integer.parseInt(System.getenv().getOrDefault("NB_HOSTILE_ROUNDS", "2"));
            String[] nth = {"third", "fourth", "fifth", "sixth"}; // words: the dump's file names keep letters only
            for (int round = 3; round <= Math.min(rounds, 6); round++) {
                Phase.run("hostile clients a " + nth[round - 3] + " time", lab, honest, l, seconds, rate,
                        new Hostile(lab, bad), null);
            }
            Phase.run("stalled consumers", lab, honest, l, seconds, rate, null, new Stalled(lab, bad));
            Phase.run("quiet again", lab, honest, l, seconds, rate, null, null);
            honest.close();
        }
    }

    /**
     * NB_PREWARM=N: before the phases, N connections to the host socket, each refused for a bad version, as a
     * warm-up of the daemon's accept and refusal paths would run them (to measure what one would save the first
     * hostile phase; the daemon has none).
     */
    private static void prewarm(ControlLab lab, int n) throws IOException {
        byte[] v9 = FrameCodec.encode(Frame.of(Wire.HELLO, 1, List.of()));
        v9[0] = 9;
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            try (java.nio.channels.SocketChannel s = java.nio.channels.SocketChannel.open(
                    java.net.UnixDomainSocketAddress.of(lab.hostSocket))) {
                s.write(ByteBuffer.wrap(v9));
                ByteBuffer in = ByteBuffer.allocate(4096);
                while (s.read(in) >= 0) {
                    in.clear();
                }
            }
        }
        System.out.printf("prewarm: %d refused connections in %d ms%n", n, (System.nanoTime() - t0) / 1_000_000);
    }

    /** This bench's main in a JVM of its own, with {@code args}: in namespace {@code pod}, or here when it is null. */
    static List<String> ownJvm(String pod, String... args) {
        List<String> cmd = new ArrayList<>();
        if (pod != null) {
            cmd.addAll(List.of("ip", "netns", "exec", pod));
        }
        cmd.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-XX:+UseSerialGC",
                "-cp", System.getProperty("java.class.path"), NeighboursBench.class.getName()));
        cmd.addAll(List.of(args));
        return cmd;
    }

    /** One phase: RATE deliveries a second to the honest consumer, which takes and rejects each batch at once. */
    static final class Phase {
        static void run(String name, ControlLab lab, Honest honest, Listener l, int seconds, int rate,
                Hostile hostile, Stalled stalled) throws Exception {
            int n = seconds * rate;
            long[] handed = new long[n];
            long[] latency = new long[n];
            long base = System.nanoTime() / 1000 * 1000; // trace IDs of this phase: base + i
            long cpu0 = daemonCpuNanos();
            java.util.Map<String, Long> roles0 = daemonCpuByRole();
            java.time.Instant started = java.time.Instant.now(); // to find the phase in a profile of the run
            if (hostile != null) {
                hostile.go();
            }
            if (stalled != null) {
                stalled.start();
            }
            honest.begin(base, n, seconds);
            long start = System.nanoTime();
            long refused = 0;
            for (int i = 0; i < n; i++) {
                long due = start + i * 1_000_000_000L / rate;
                while (System.nanoTime() < due) {
                    LockSupport.parkNanos(due - System.nanoTime());
                }
                handed[i] = System.nanoTime();
                if (lab.server.deliver(ControlLab.delivery(base + i, l, IP_GOOD, i)) != Consumers.Handover.TAKEN) {
                    refused++;
                }
                if (stalled != null) {
                    stalled.deliver(i);
                }
            }
            long[] received = honest.received();
            for (int i = 0; i < n; i++) {
                latency[i] = received[i] == 0 ? 0 : received[i] - handed[i];
            }
            if (hostile != null) {
                hostile.stop();
            }
            if (stalled != null) {
                stalled.stop();
            }
            long cpu = daemonCpuNanos() - cpu0;
            StringBuilder roles = new StringBuilder();
            daemonCpuByRole().forEach((role, ns) -> roles.append(roles.length() == 0 ? "" : " ").append(role)
                    .append(' ').append((ns - roles0.getOrDefault(role, 0L)) / 1_000_000));
            long[] got = Arrays.stream(latency).filter(x -> x > 0).sorted().toArray();
            // Where in the phase the tail is: a burst at its start (the attacks run once, then hold) or all along.
            int firstSecond = Math.min(n, rate);
            long[] first = Arrays.stream(latency, 0, firstSecond).filter(x -> x > 0).sorted().toArray();
            long[] rest = Arrays.stream(latency, firstSecond, n).filter(x -> x > 0).sorted().toArray();
            System.gc();
            long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
            System.out.printf("%-24s sent=%d taken=%d refused=%d p50=%.1fus p99=%.1fus p999=%.1fus max=%.1fus"
                    + " p99-first-second=%.1fus p99-after=%.1fus daemon-cpu=%dms (%s) heap-after-gc=%dMiB"
                    + " started=%s%s%s%n",
                    name, n, got.length, refused, q(got, 0.50), q(got, 0.99), q(got, 0.999),
                    got.length == 0 ? 0 : got[got.length - 1] / 1e3, q(first, 0.99), q(rest, 0.99),
                    cpu / 1_000_000, roles,
                    heap >> 20, started,
                    hostile == null ? "" : " " + hostile.summary(), stalled == null ? "" : " " + stalled.summary());
            timeline(latency, handed, start, rate);
            dump(name, latency, handed);
        }

        /**
         * NB_DUMP=DIR: each delivery of the phase, one line each (when it was handed over, in System.nanoTime's
         * nanoseconds, which on Linux are CLOCK_MONOTONIC's, as perf's -k CLOCK_MONOTONIC and a probe's are; its
         * latency in nanoseconds, 0 if never taken), in DIR/PHASE.csv: for scripts/bench-neighbours, which sets them
         * beside what the host took from the CPU in the same time.
         */
        private static void dump(String name, long[] latency, long[] handed) throws IOException {
            String dir = System.getenv("NB_DUMP");
            if (dir == null) {
                return;
            }
            StringBuilder out = new StringBuilder();
            for (int i = 0; i < latency.length; i++) {
                out.append(handed[i]).append(',').append(latency[i]).append('\n');
            }
            Files.writeString(Path.of(dir, name.replaceAll("[^a-z]+", "-") + ".csv"), out);
        }

        /**
         * NB_TIMELINE=MS: where in the phase the tail is, window by window (from the phase's start): each window of
         * MS milliseconds whose worst delivery took over a millisecond, with its worst and how many took that long.
         */
        private static void timeline(long[] latency, long[] handed, long start, int rate) {
            String w = System.getenv("NB_TIMELINE");
            if (w == null) {
                return;
            }
            long window = Long.parseLong(w) * 1_000_000L;
            StringBuilder out = new StringBuilder("  slow windows:");
            int i = 0;
            while (i < latency.length) {
                long from = (handed[i] - start) / window;
                long worst = 0;
                int slow = 0;
                for (; i < latency.length && (handed[i] - start) / window == from; i++) {
                    worst = Math.max(worst, latency[i]);
                    slow += latency[i] > 1_000_000 ? 1 : 0;
                }
                if (worst > 1_000_000) {
                    out.append(String.format(" %d ms: max %.1f ms, %d over 1 ms;", from * window / 1_000_000,
                            worst / 1e6, slow));
                }
            }
            System.out.println(out);
        }

        /** CPU time of the control server's threads (its loops and workers), which the daemon would spend. */
        private static long daemonCpuNanos() {
            return daemonCpuByRole().values().stream().mapToLong(Long::longValue).sum();
        }

        /** The same by role: the serving loops, the accept loop, the rest (workers: identify, queries, pods). */
        static java.util.Map<String, Long> daemonCpuByRole() {
            java.lang.management.ThreadMXBean mx = ManagementFactory.getThreadMXBean();
            java.util.Map<String, Long> by = new java.util.TreeMap<>();
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                String n = t.getName();
                if (n.startsWith("cmdemux-control") || n.startsWith("cmdemux-accept")) {
                    String role = n.startsWith("cmdemux-accept") ? "accept"
                            : n.matches("cmdemux-control-\\d+-\\d+") ? "loops" : "other";
                    by.merge(role, Math.max(0, mx.getThreadCpuTime(t.getId())), Long::sum);
                }
            }
            return by;
        }

        private static double q(long[] sorted, double p) {
            return sorted.length == 0 ? 0 : sorted[Math.min(sorted.length - 1, (int) (p * sorted.length))] / 1e3;
        }
    }

    /**
     * The honest consumer in the good pod: it listens on IP_GOOD:7471, takes each batch of requests and answers it
     * with REJs at once (all of a batch's in one write, as a consumer that answers many does: one waited for each
     * would make the measurement the round trip's), and notes when it held each request (System.nanoTime, which on
     * Linux is CLOCK_MONOTONIC in every process of the machine).
     */
    interface Honest extends AutoCloseable {
        /** Starts taking the phase's N requests, trace IDs BASE to BASE + N - 1, for at most SECONDS + 5 s. */
        void begin(long base, int n, int seconds) throws IOException;

        /** Waits for the phase's end: when each request was held, 0 for one never taken. */
        long[] received() throws Exception;

        @Override
        void close() throws Exception;

        /** Takes one phase's requests on {@code c} and notes when each was held. */
        static long[] take(ControlClient c, long base, int n, int seconds) {
            long[] at = new long[n];
            int taken = 0;
            long deadline = System.nanoTime() + (seconds + 5) * 1_000_000_000L;
            try {
                while (taken < n && System.nanoTime() < deadline) {
                    List<DeliveredRequest> batch = c.nextRequests(256, Duration.ofMillis(50));
                    long now = System.nanoTime();
                    List<Rejection> answers = new ArrayList<>(batch.size());
                    for (DeliveredRequest r : batch) {
                        answers.add(new Rejection(r.traceId(), 28, null, null));
                        long i = r.traceId() - base;
                        if (i >= 0 && i < n) { // else an earlier phase's, late
                            at[(int) i] = now;
                            taken++;
                        }
                    }
                    for (java.util.concurrent.CompletableFuture<Void> f : c.rejectAll(answers)) {
                        f.join();
                    }
                }
            } catch (Exception e) {
                System.err.println("honest consumer: " + e);
            }
            return at;
        }

        private static ControlClient listen(ControlClient c) throws IOException, RequestRefused {
            c.hello("honest");
            c.listen(ListenSpec.of(PortSpace.TCP, InetAddresses.parse(IP_GOOD), 7471));
            return c;
        }

        /** In the daemon's JVM, with a client event loop of its own (the attackers' clients share the lab's). */
        final class InJvm implements Honest {
            private final io.netty.channel.EventLoopGroup own = new io.netty.channel.MultiThreadIoEventLoopGroup(1,
                    io.netty.channel.epoll.EpollIoHandler.newFactory());
            private final ControlClient client;
            private Thread consumer;
            private long[] at;

            InJvm(ControlLab lab, String pod) throws IOException, RequestRefused {
                client = listen(lab.podClient(pod, own));
            }

            @Override
            public void begin(long base, int n, int seconds) {
                consumer = new Thread(() -> at = take(client, base, n, seconds), "honest");
                consumer.start();
            }

            @Override
            public long[] received() throws InterruptedException {
                consumer.join();
                return at;
            }

            @Override
            public void close() {
                client.close();
                own.shutdownGracefully(); // its thread is not a daemon: the JVM would not end
            }
        }

        /** In a JVM of its own, started in the pod: {@code NeighboursBench consumer NAME}, one line per phase. */
        final class OwnJvm implements Honest {
            private final Process process;
            private final java.io.BufferedReader out;
            private final Path times;

            OwnJvm(ControlLab lab, String pod) throws IOException {
                process = new ProcessBuilder(ownJvm(pod, "consumer", lab.abstractName))
                        .redirectError(ProcessBuilder.Redirect.INHERIT).start();
                out = new java.io.BufferedReader(new java.io.InputStreamReader(process.getInputStream(),
                        StandardCharsets.UTF_8));
                String line = out.readLine();
                if (!"ready".equals(line)) {
                    throw new IOException("the honest consumer did not start: " + line);
                }
                times = Files.createTempFile("nb-honest", ".bin");
            }

            @Override
            public void begin(long base, int n, int seconds) throws IOException {
                process.getOutputStream().write((base + " " + n + " " + seconds + " " + times + "\n")
                        .getBytes(StandardCharsets.US_ASCII));
                process.getOutputStream().flush();
            }

            @Override
            public long[] received() throws IOException {
                String line = out.readLine();
                if (!"done".equals(line)) {
                    throw new IOException("the honest consumer ended its phase with: " + line);
                }
                ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(times));
                long[] at = new long[b.remaining() / 8];
                b.asLongBuffer().get(at);
                return at;
            }

            @Override
            public void close() throws Exception {
                process.getOutputStream().close();
                process.waitFor();
                Files.deleteIfExists(times);
            }

            /** The consumer's side: per line "BASE N SECONDS FILE" on stdin, one phase, then "done". */
            static void serve(String abstractName) throws Exception {
                ControlClient c = listen(ControlClient.connect(ControlClient.abstractAddress(abstractName),
                        Duration.ofSeconds(5)));
                System.out.println("ready");
                System.out.flush();
                java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(System.in,
                        StandardCharsets.US_ASCII));
                for (String line; (line = in.readLine()) != null; ) {
                    String[] f = line.split(" ");
                    long[] at = take(c, Long.parseLong(f[0]), Integer.parseInt(f[1]), Integer.parseInt(f[2]));
                    ByteBuffer b = ByteBuffer.allocate(at.length * 8);
                    b.asLongBuffer().put(at);
                    Files.write(Path.of(f[3]), b.array());
                    System.out.println("done");
                    System.out.flush();
                }
                c.close();
            }
        }
    }

    /**
     * The attacks of HostileClientsAsRootTest, from two processes of their own (so that their threads, heap and
     * collector pauses are not the daemon's, as a real pod's would not be): one in the hostile pod, on its
     * {@code @cmdemux}, one in the host namespace, on the host socket. Each starts its JVM and loads its classes
     * (one connection made and closed), says "ready", waits for "go" (the phase's start: a JVM's start on these 2
     * cores is no attack, and took them for a second or two), runs its set once, holds its connections until
     * its stdin closes, then prints one summary line.
     */
    static final class Hostile {
        private final List<Process> attackers = new ArrayList<>();
        private final List<java.io.BufferedReader> outputs = new ArrayList<>();
        private final List<String> summaries = new ArrayList<>();
        private final CpuShare cpuShare = CpuShare.fromEnv();

        Hostile(ControlLab lab, String pod) throws IOException {
            List<String> podCmd = ownJvm(pod, "attack-pod", lab.abstractName);
            List<String> hostCmd = ownJvm(null, "attack-host", lab.hostSocket.toString());
            for (List<String> cmd : List.of(podCmd, hostCmd)) {
                attackers.add(new ProcessBuilder(cpuShare.wrap(cmd))
                        .redirectError(ProcessBuilder.Redirect.INHERIT).start());
            }
            for (Process p : attackers) {
                java.io.BufferedReader out = new java.io.BufferedReader(
                        new java.io.InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
                outputs.add(out);
                String line = out.readLine();
                if (!"ready".equals(line)) {
                    throw new IOException("an attacker did not start: " + line);
                }
            }
        }

        void go() throws IOException {
            for (Process p : attackers) {
                p.getOutputStream().write("go\n".getBytes(StandardCharsets.US_ASCII));
                p.getOutputStream().flush();
            }
        }

        void stop() throws IOException, InterruptedException {
            for (Process p : attackers) {
                p.getOutputStream().close();
            }
            for (int i = 0; i < attackers.size(); i++) {
                StringBuilder rest = new StringBuilder();
                for (String line; (line = outputs.get(i).readLine()) != null; ) {
                    rest.append(line);
                }
                summaries.add(rest.toString().trim());
                attackers.get(i).waitFor();
            }
            cpuShare.remove();
        }

        String summary() {
            return "(" + cpuShare + "; " + String.join("; ", summaries) + ")";
        }

        /** In the hostile pod: 1,000 idle connections (beyond the namespace's 128 the daemon cuts them). */
        static void pod(String abstractName) throws Exception {
            ControlClient.connect(ControlClient.abstractAddress(abstractName), Duration.ofSeconds(5)).close();
            awaitGo();
            long t0 = System.nanoTime();
            List<ControlClient> held = new ArrayList<>();
            int refused = 0;
            for (int i = 0; i < (on("idle") ? 1000 : 0); i++) {
                try {
                    held.add(ControlClient.connect(ControlClient.abstractAddress(abstractName), Duration.ofSeconds(5)));
                } catch (IOException e) {
                    refused++; // beyond the namespace's limit: counted by the server too
                }
            }
            long took = (System.nanoTime() - t0) / 1_000_000;
            holdUntilStdinCloses();
            held.forEach(ControlClient::close);
            System.out.println("idle connections=1000, refused at connect=" + refused + ", in " + took + " ms");
        }

        /**
         * On the host socket: 20 half frames and 20 lengths of 2^32 - 1, 50 random-byte writers, 2,000
         * LISTEN/UNLISTEN and 100 listens on the honest pod's address (all from the host namespace, whose
         * own connection slots the pod's idle ones do not take).
         */
        static void host(String socket) throws Exception {
            DomainSocketAddress host = new DomainSocketAddress(socket);
            Duration t = Duration.ofSeconds(5);
            ControlClient.connect(host, t).close();
            awaitGo();
            long t0 = System.nanoTime();
            List<ControlClient> held = new ArrayList<>();
            Random rnd = new Random(20);
            for (int i = 0; i < (on("half") ? 20 : 0); i++) {
                ControlClient half = ControlClient.connect(host, t);
                held.add(half);
                raw(half, new byte[] {1, 1, 0}); // half a header, then silence
                byte[] huge = FrameCodec.encode(Frame.of(Wire.HELLO, 1, List.of()));
                ByteBuffer.wrap(huge).putInt(8, 0xffffffff);
                try (ControlClient h = ControlClient.connect(host, t)) {
                    raw(h, huge);
                }
            }
            for (int i = 0; i < (on("junk") ? 50 : 0); i++) {
                byte[] junk = new byte[1 + rnd.nextInt(4096)];
                rnd.nextBytes(junk);
                try (ControlClient c = ControlClient.connect(host, t)) {
                    raw(c, junk);
                }
            }
            int rounds = 0;
            try (ControlClient c = ControlClient.connect(host, t)) {
                for (int k = 0; k < (on("flood") ? 2000 : 0); k++) {
                    ListenerInfo li = c.listen(
                            ListenSpec.of(PortSpace.TCP, InetAddresses.parse("0.0.0.0"), 9000 + k % 50));
                    c.unlisten(li.listenerId());
                    rounds++;
                }
            }
            if (named("pipe")) {
                // LISTENs without waiting for the replies: one write of 20,000, as a client that does not play by
                // the round trip would send them (the first 50 listen, the rest are EADDRINUSE)
                java.io.ByteArrayOutputStream o = new java.io.ByteArrayOutputStream();
                for (int k = 0; k < 20_000; k++) {
                    ListenSpec spec = ListenSpec.of(PortSpace.TCP, InetAddresses.parse("0.0.0.0"), 9100 + k % 50);
                    o.write(FrameCodec.encode(Frame.of(Wire.LISTEN, k + 1,
                            List.of(io.cmdemux.control.protocol.Messages.listenSpec(spec)))));
                }
                ControlClient c = ControlClient.connect(host, t);
                held.add(c);
                raw(c, o.toByteArray());
            }
            int spoofsRefused = 0;
            try (ControlClient c = ControlClient.connect(host, t)) {
                for (int k = 0; k < (on("spoof") ? 100 : 0); k++) {
                    try {
                        c.listen(ListenSpec.of(PortSpace.TCP, InetAddresses.parse(IP_GOOD), 7472 + k));
                    } catch (RequestRefused e) {
                        spoofsRefused++; // EADDRNOTAVAIL, as it must be
                    }
                }
            }
            long took = (System.nanoTime() - t0) / 1_000_000;
            holdUntilStdinCloses();
            held.forEach(ControlClient::close);
            System.out.println("LISTEN/UNLISTEN=" + rounds + ", spoofs refused=" + spoofsRefused
                    + (named("pipe") ? ", pipelined LISTENs=20000" : "") + ", in " + took + " ms");
        }

        /** An attack that runs only when NB_ATTACKS names it (pipe), so that the default set stays comparable. */
        private static boolean named(String attack) {
            String a = System.getenv("NB_ATTACKS");
            return a != null && List.of(a.split(",")).contains(attack);
        }

        /** NB_ATTACKS (idle,half,junk,flood,spoof; default all): to tell which attack costs what. */
        private static boolean on(String attack) {
            return System.getenv("NB_ATTACKS") == null || named(attack);
        }

        private static void awaitGo() throws IOException {
            System.out.println("ready");
            System.out.flush();
            StringBuilder line = new StringBuilder();
            for (int c; (c = System.in.read()) != '\n'; ) {
                if (c < 0) {
                    throw new IOException("stdin closed before go");
                }
                line.append((char) c);
            }
            if (!line.toString().equals("go")) {
                throw new IOException("expected go, got " + line);
            }
        }

        private static void holdUntilStdinCloses() throws IOException {
            while (System.in.read() >= 0) {
                // the bench closes our stdin at the phase's end
            }
        }

        private static void raw(ControlClient c, byte[] bytes) {
            c.channel().writeAndFlush(Unpooled.wrappedBuffer(bytes)).awaitUninterruptibly(2000);
        }
    }

    /**
     * NB_ATTACKER_CPU=CORES (say 0.5): each attacker starts in a CPU cgroup of its own, limited to that many cores
     * by the CFS quota, as a pod's CPU limit holds a pod. Without it the attackers may take both cores, which no
     * pod on a host with limits can. cgroup v2 (cpu.max) when /sys/fs/cgroup is unified, else the v1 cpu
     * controller.
     */
    static final class CpuShare {
        private static final long PERIOD_US = 100_000;
        private final Double cores;
        private final List<Path> groups = new ArrayList<>();

        private CpuShare(Double cores) {
            this.cores = cores;
        }

        static CpuShare fromEnv() {
            String v = System.getenv("NB_ATTACKER_CPU");
            return new CpuShare(v == null || v.isEmpty() ? null : Double.valueOf(v));
        }

        /**
         * The command, started inside a new group: the shell joins it, then execs the command. NB_ATTACKER_CPUS=LIST
         * (say 1, with the bench itself under {@code taskset -c 0}) also pins the attackers to those CPUs, so
         * that the daemon has the same CPU in every phase and what the hostile phase adds is its own work.
         */
        List<String> wrap(List<String> cmd) throws IOException {
            String cpus = System.getenv("NB_ATTACKER_CPUS");
            if (cpus != null && !cpus.isEmpty()) {
                List<String> pinned = new ArrayList<>(List.of("taskset", "-c", cpus));
                pinned.addAll(cmd);
                cmd = pinned;
            }
            if (cores == null) {
                return cmd;
            }
            long quota = Math.round(cores * PERIOD_US);
            Path root = Path.of("/sys/fs/cgroup");
            boolean v2 = Files.exists(root.resolve("cgroup.controllers"));
            Path group = (v2 ? root : root.resolve("cpu")).resolve("cmdemux-nb-" + ProcessHandle.current().pid()
                    + "-" + groups.size());
            Files.createDirectories(group);
            groups.add(group);
            if (v2) {
                Files.writeString(group.resolve("cpu.max"), quota + " " + PERIOD_US);
            } else {
                Files.writeString(group.resolve("cpu.cfs_period_us"), Long.toString(PERIOD_US));
                Files.writeString(group.resolve("cpu.cfs_quota_us"), Long.toString(quota));
            }
            List<String> wrapped = new ArrayList<>(List.of("sh", "-c",
                    "echo $$ > '" + group.resolve("cgroup.procs") + "' && exec \"$@\"", "attacker"));
            wrapped.addAll(cmd);
            return wrapped;
        }

        /** After the attackers have ended; a group with a task left in it cannot go, and says so. */
        void remove() throws IOException {
            for (Path g : groups) {
                Files.delete(g);
            }
            groups.clear();
        }

        @Override
        public String toString() {
            String cpus = System.getenv("NB_ATTACKER_CPUS");
            return (cores == null ? "attackers unlimited" : "attackers limited to " + cores + " cores each")
                    + (cpus == null || cpus.isEmpty() ? "" : ", on CPUs " + cpus);
        }
    }

    /** Two consumers in the other pod, one never reading, one never answering; each gets what the honest one does. */
    static final class Stalled {
        private final ControlLab lab;
        private final String pod;
        private ControlClient silent;
        private ControlClient hoarder;
        private Listener silentListener;
        private Listener hoarderListener;
        private volatile boolean stop;
        private Thread reader;
        private long backlog;
        private long hoarded;

        Stalled(ControlLab lab, String pod) {
            this.lab = lab;
            this.pod = pod;
        }

        void start() throws Exception {
            silent = lab.podClient(pod);
            silent.listen(ListenSpec.of(PortSpace.TCP, InetAddresses.parse(IP_BAD), 7481));
            silent.channel().config().setAutoRead(false); // stops reading: its socket fills
            hoarder = lab.podClient(pod);
            hoarder.listen(ListenSpec.of(PortSpace.TCP, InetAddresses.parse(IP_BAD), 7482));
            silentListener = lab.listener(x -> x.port() == 7481);
            hoarderListener = lab.listener(x -> x.port() == 7482);
            reader = new Thread(() -> {
                while (!stop) {
                    try {
                        hoarded += hoarder.nextRequests(256, Duration.ofMillis(50)).size();
                    } catch (Exception e) {
                        return;
                    }
                }
            }, "hoarder");
            reader.start();
        }

        void deliver(int i) {
            long t = 1L << 40 | i;
            if (lab.server.deliver(ControlLab.delivery(t, silentListener, IP_BAD, i)) != Consumers.Handover.TAKEN) {
                backlog++;
            }
            if (lab.server.deliver(ControlLab.delivery(t | 1L << 41, hoarderListener, IP_BAD, i))
                    != Consumers.Handover.TAKEN) {
                backlog++;
            }
        }

        void stop() throws InterruptedException {
            stop = true;
            reader.join();
            silent.close();
            hoarder.close();
        }

        String summary() {
            return "(stalled: refused as backlog=" + backlog + ", held unanswered by the hoarder=" + hoarded + ")";
        }
    }
}
