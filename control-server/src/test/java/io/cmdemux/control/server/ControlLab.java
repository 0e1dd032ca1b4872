package io.cmdemux.control.server;

import io.cmdemux.control.client.ControlClient;
import io.cmdemux.gid.Gid;
import io.cmdemux.ingress.resolve.Decision;
import io.cmdemux.ingress.resolve.IngressKey;
import io.cmdemux.ingress.resolve.Listener;
import io.cmdemux.ingress.resolve.NetworkType;
import io.cmdemux.ingress.resolve.PacketMeta;
import io.cmdemux.ingress.resolve.QpType;
import io.cmdemux.ingress.resolve.ResolverMode;
import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsDiscovery;
import io.cmdemux.namespaces.NetnsExecutor;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.namespaces.NetnsState;
import io.cmdemux.namespaces.TopologySnapshot;
import io.cmdemux.namespaces.TopologyWatcher;
import io.cmdemux.namespaces.testkit.Host;
import io.cmdemux.namespaces.testkit.Netns;
import io.cmdemux.netdev.InetAddresses;
import io.cmdemux.dataplane.consumer.Consumers;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.unix.DomainSocketAddress;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * A daemon-sized world for control tests, as root: throw-away pod namespaces with a veth each and
 * an address, a live {@link TopologyWatcher}, and a {@link ControlServer} on a private socket path
 * and abstract name. Discovery sees only this lab's namespaces (a private /run/netns of symlinks
 * and a /proc with only "self"), so the server never reaches into other tests' namespaces.
 */
public final class ControlLab implements AutoCloseable {
    public final Netns netns;
    public final Path dir;
    public final Path runNetns;
    public final Path hostSocket;
    public final String abstractName;
    public final NetnsExecutor executor = new NetnsExecutor(2);
    public final EventLoopGroup clientGroup = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
    public final NetnsDiscovery discovery;
    public final TopologyWatcher watcher;
    private final List<ControlClient> clients = new ArrayList<>();
    private int nextVeth;
    public ControlServer server;

    public ControlLab(String tag) throws IOException {
        this.netns = new Netns(tag);
        this.dir = Files.createTempDirectory("cmdx-" + tag);
        this.runNetns = Files.createDirectory(dir.resolve("netns"));
        Path proc = Files.createDirectory(dir.resolve("proc"));
        Files.createSymbolicLink(proc.resolve("self"), Path.of("/proc/self"));
        this.hostSocket = dir.resolve("control.sock");
        this.abstractName = "cmdemux-test-" + netns.prefix();
        this.discovery = new NetnsDiscovery(runNetns, proc);
        this.watcher = new TopologyWatcher(discovery, executor);
        watcher.start();
    }

    public ControlServer start(ControlServer.Config config, QueryHandler queries) throws IOException {
        return start(config, queries, null);
    }

    public ControlServer start(ControlServer.Config config, QueryHandler queries, PodHandler pods) throws IOException {
        server = ControlServer.start(config.withHostSocket(hostSocket).withAbstractName(abstractName), watcher,
                discovery, executor, queries, pods);
        return server;
    }

    public ControlServer start() throws IOException {
        return start(ControlServer.Config.defaults(), null);
    }

    /**
     * A pod: a namespace with one veth (eth0, the host end deleted on close) holding
     * {@code cidr}, visible to discovery.
     */
    public String pod(String suffix, String cidr) throws IOException {
        String ns = netns.add(suffix);
        String hostEnd = netns.hostLink("v" + nextVeth++);
        Host.sh("ip", "link", "add", hostEnd, "type", "veth", "peer", "name", "eth0", "netns", ns);
        Host.sh("ip", "-n", ns, "addr", "add", cidr, "dev", "eth0");
        Host.sh("ip", "-n", ns, "link", "set", "eth0", "up");
        Host.sh("ip", "link", "set", hostEnd, "up");
        Files.createSymbolicLink(runNetns.resolve(ns), Path.of("/run/netns", ns));
        return ns;
    }

    /** A namespace the daemon is not told about. */
    public String hiddenPod(String suffix) {
        return netns.add(suffix);
    }

    public void removePod(String ns) throws IOException {
        Files.deleteIfExists(runNetns.resolve(ns));
        Host.sh("ip", "netns", "del", ns);
        netns.forget(ns);
    }

    public NetnsId id(String ns) throws IOException {
        return NetnsDiscovery.idOf(Path.of("/run/netns", ns));
    }

    public NetnsId hostId() throws IOException {
        return NetnsDiscovery.idOf(Path.of("/proc/self/ns/net"));
    }

    /** Waits until the live topology has {@code ns} with {@code ip} and @name is served there. */
    public void awaitReady(String ns, String ip) throws IOException {
        NetnsId id = id(ns);
        InetAddress a = InetAddresses.parse(ip);
        await("topology and @" + abstractName + " for " + ns, () -> {
            TopologySnapshot t = watcher.current();
            NetnsState s = t == null ? null : t.namespace(id);
            return s != null && s.addresses().stream().anyMatch(x -> x.address().equals(a))
                    && server.servedNamespaces().contains(id);
        });
    }

    /** A client whose socket is created inside {@code ns} (null: the host), connecting to {@code address}. */
    public ControlClient client(String ns, DomainSocketAddress address) throws IOException {
        return client(ns, address, clientGroup);
    }

    /** A client on {@code group}'s event loop rather than the one the lab's clients share. */
    public ControlClient client(String ns, DomainSocketAddress address, EventLoopGroup group) throws IOException {
        String path = ns == null ? "/proc/self/ns/net" : "/run/netns/" + ns;
        ControlClient c = ControlClient.connect(address, Duration.ofSeconds(5), group,
                () -> executor.call(path, EpollDomainSocketChannel::new));
        synchronized (clients) {
            clients.add(c);
        }
        return c;
    }

    /** A consumer in {@code ns}, on the @name socket of its own namespace. */
    public ControlClient podClient(String ns) throws IOException {
        return client(ns, ControlClient.abstractAddress(abstractName));
    }

    /** The same, on {@code group}'s event loop. */
    public ControlClient podClient(String ns, EventLoopGroup group) throws IOException {
        return client(ns, ControlClient.abstractAddress(abstractName), group);
    }

    /** A host-socket client whose socket is made in {@code ns} (null: the host). */
    public ControlClient hostSocketClient(String ns) throws IOException {
        return client(ns, new DomainSocketAddress(hostSocket.toString()));
    }

    public static void await(String what, BooleanSupplier cond) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what);
            }
        }
    }

    public Listener listener(Predicate<Listener> p) {
        return server.listeners().all().stream().filter(p).findFirst()
                .orElseThrow(() -> new AssertionError("no such listener in " + server.listeners().all()));
    }

    private static final String SOURCE = "10.213.0.1";
    private static final java.util.concurrent.ConcurrentHashMap<String, InetAddress> PARSED =
            new java.util.concurrent.ConcurrentHashMap<>();

    /** A REQ as the pipeline would hand it over: from 10.213.0.1:40000 to {@code dst}:port of the listener. */
    public static Consumers.Delivery delivery(long traceId, Listener l, String dst, long localCommId) {
        // Parsed once per address: NeighboursBench calls this 5,000 times a second in the daemon's JVM, and parsing
        // there was most of that JVM's garbage, so its collections were the harness's, not the daemon's.
        InetAddress d = PARSED.computeIfAbsent(dst, InetAddresses::parse);
        InetAddress s = PARSED.computeIfAbsent(SOURCE, InetAddresses::parse);
        PacketMeta meta = new PacketMeta(new IngressKey("soft0", 1, 0x0202_03ff_fe04_0506L, 0xffff),
                NetworkType.ROCE_V2, Gid.ofIp(d), Gid.ofIp(d), Gid.ofIp(s), 0xffff, 0xffff,
                l.portSpace().serviceId(l.port()), 0, 4, d, s, 40000, OptionalInt.empty(), null, false, localCommId,
                QpType.RC, Gid.ofIp(s));
        Decision decision = new Decision(Decision.Outcome.DELIVER, null, null, null, new LinkRef(l.netns(), 2),
                l.netns(), l, ResolverMode.KERNEL, List.of(), 7);
        byte[] frame = new byte[] {0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x42};
        return new Consumers.Delivery(traceId, l, frame, meta, decision);
    }

    public static int openFds() throws IOException {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            return (int) s.count();
        }
    }

    @Override
    public void close() {
        synchronized (clients) {
            for (ControlClient c : clients) {
                c.close();
            }
        }
        if (server != null) {
            server.close();
        }
        watcher.close();
        clientGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(3000);
        executor.close();
        netns.close();
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temp directory left behind is harmless; the namespaces above are what matter
        }
    }
}
