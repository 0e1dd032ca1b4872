package io.cmdemux.cli;

import io.cmdemux.render.TopologyView;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cmdemux.ingress.resolve.PacketMeta;
import io.cmdemux.ingress.wire.PortSpace;
import io.cmdemux.netdev.InetAddresses;
import io.cmdemux.control.protocol.Acceptance;
import io.cmdemux.control.protocol.ConsumerInfo;
import io.cmdemux.control.client.ControlClient;
import io.cmdemux.control.client.ReconnectingConsumer;
import io.cmdemux.control.protocol.DeliveredRequest;
import io.cmdemux.control.protocol.ListenSpec;
import io.cmdemux.control.protocol.ListenerInfo;
import io.cmdemux.control.protocol.Rejection;
import io.cmdemux.control.protocol.RequestRefused;
import io.cmdemux.control.protocol.Wire;
import io.netty.channel.unix.DomainSocketAddress;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * A consumer for people and tests: registers one listener with the daemon from the namespace it
 * runs in (`ip netns exec POD cmdemux listen ...`) and prints each request delivered to it as one
 * JSON line on stdout.
 */
@Command(name = "listen", mixinStandardHelpOptions = true,
        description = {"Listen for RDMA CM connection requests in this network namespace, through the daemon",
            "(run it with `ip netns exec NS`). Each delivered REQ is printed as one JSON line.",
            "Exit: 0 after --count requests, 130/143 on SIGINT/SIGTERM, 1 when the daemon refuses the LISTEN",
            "(EADDRINUSE, EADDRNOTAVAIL...), 2 usage, 3 no daemon.",
            "When the daemon goes away (a restart, a crash), it registers again with the next one and says so",
            "(events disconnected, reconnected); --no-reconnect exits 3 instead.",
            "Without --accept or --reject a request is printed and left unanswered: the daemon hands a consumer",
            "at most its --max-outstanding-per-consumer (4096) unanswered requests, and then no more."})
final class ListenCommand implements Callable<Integer> {
    @Mixin
    Terminal terminal = new Terminal();

    @Option(names = "--ip", required = true, paramLabel = "ADDR",
            description = "the address to listen on: one of this namespace's, or 0.0.0.0 / :: for all")
    String ip;

    @Option(names = "--port", required = true, paramLabel = "PORT", description = "0-65535; 0 picks an ephemeral port")
    int port;

    @Option(names = "--ps", paramLabel = "PS", defaultValue = "tcp",
            description = "port space: tcp, udp, ib or ipoib (default tcp)")
    String ps;

    @Option(names = "--afonly", paramLabel = "BOOL", arity = "1",
            description = "rdma_set_afonly; without it the kernel's default (1 for IPv4, 0 for IPv6)")
    Boolean afonly;

    @Option(names = "--scope", paramLabel = "IFINDEX", description = "the interface of an IPv6 link-local address")
    int scope;

    @Option(names = "--reject", paramLabel = "REASON",
            description = "answer every request with a CM REJ carrying this reason (e.g. 28)")
    Integer reject;

    @Option(names = "--accept",
            description = "answer every request with a REP (QPN and PSN at random) and print the connection's events")
    boolean accept;

    @Option(names = "--count", paramLabel = "N", description = "exit after N requests")
    int count;

    @Option(names = "--json",
            description = "status lines (listening, closed) as JSON on stdout too; requests are always JSON")
    boolean json;

    @Option(names = "--socket", paramLabel = "PATH",
            description = "connect to the daemon's host socket file instead of @cmdemux in this namespace")
    Path socket;

    @Option(names = {"--abstract-name", "--abstract"}, paramLabel = "NAME", defaultValue = Wire.ABSTRACT_NAME,
            description = "the daemon's abstract control socket, as serve --abstract-name (default cmdemux)")
    String abstractName;

    @Option(names = "--connect-timeout", paramLabel = "MS", defaultValue = "10000",
            description = "keep trying to reach the daemon and register for this long (default 10000)")
    long connectTimeoutMillis;

    @Option(names = "--no-reconnect",
            description = "exit 3 when the daemon goes away, instead of registering again with the next one")
    boolean noReconnect;

    /** Requests taken, printed and answered at a time. */
    private static final int BURST = 64;
    private PrintWriter out;
    private volatile boolean stopping;
    private volatile ReconnectingConsumer consumer;
    /** Why the registration ended for good: the daemon went away (--no-reconnect) or refused the LISTEN again. */
    private volatile String lost;
    private volatile boolean refusedAgain;

    @Override
    public Integer call() throws Exception {
        out = terminal.out();
        ListenSpec spec = spec();
        if (reject != null && (reject < 0 || reject > 0xffff)) {
            throw new IllegalArgumentException("--reject " + reject + " is not a 16-bit CM REJ reason");
        }
        CountDownLatch done = new CountDownLatch(1);
        // SIGINT/SIGTERM: close the connection (the daemon drops our listener) and let the loop finish its line.
        Thread hook = new Thread(() -> {
            stopping = true;
            ReconnectingConsumer c = consumer;
            if (c != null) {
                c.close();
            }
            try {
                done.await(3, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "cmdemux-listen-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            return run(spec);
        } finally {
            ReconnectingConsumer c = consumer;
            if (c != null) {
                c.close();
            }
            out.flush();
            done.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // already shutting down: the hook is running and waits for done
            }
        }
    }

    private int run(ListenSpec spec) throws Exception {
        DomainSocketAddress address = socket != null ? new DomainSocketAddress(socket.toString())
                : ControlClient.abstractAddress(abstractName);
        String where = socket != null ? socket.toString() : "@" + abstractName;
        ReconnectingConsumer c;
        try {
            c = ReconnectingConsumer.register(address, "cmdemux listen", List.of(spec),
                    Duration.ofMillis(connectTimeoutMillis), new Events());
        } catch (IOException e) {
            throw new EnvironmentException("cannot reach the cmdemux daemon at " + where + " in this namespace: "
                    + e.getMessage() + " (is `cmdemux serve` running?)");
        } catch (RequestRefused e) {
            terminal.err().println("cmdemux: LISTEN refused: " + e);
            return ExitCode.NO;
        }
        consumer = c;
        if (stopping) {
            return ExitCode.OK; // a signal while registering
        }
        ReconnectingConsumer.Registration first = c.registration();
        ConsumerInfo me = first.me();
        ListenerInfo listener = first.listeners().get(0);
        String netns = me.netnsName().isEmpty()
                ? "inode " + me.netns().inode()
                : me.netnsName() + " (inode " + me.netns().inode() + ")";
        status(listening(me, listener), "listening on " + listener.spec().portSpace().cliName() + " "
                + hostPort(listener.spec().address(), listener.spec().port()) + " in netns " + netns
                + ", listener " + listener.listenerId());
        int seen = 0;
        while (!stopping && (count <= 0 || seen < count)) {
            List<DeliveredRequest> burst;
            try {
                burst = c.nextRequests(count <= 0 ? BURST : Math.min(BURST, count - seen), Duration.ofMillis(500));
            } catch (IOException e) {
                if (stopping) {
                    break;
                }
                if (refusedAgain) {
                    return ExitCode.NO; // said by Events.refused
                }
                terminal.err().println("cmdemux: " + (lost != null ? lost : e.getMessage()));
                return ExitCode.ENVIRONMENT;
            }
            ControlClient now = c.client();
            printEvents(now);
            seen += burst.size();
            for (DeliveredRequest r : burst) {
                ObjectNode line = requestJson(r);
                if (reject != null) {
                    line.put("rejected", reject);
                }
                out.println(TopologyView.JSON.writeValueAsString(line));
            }
            out.flush();
            // A daemon that has gone since it delivered these cannot take their answers: the requesters retry,
            // and the next daemon delivers the retries.
            if (accept && reject == null && !burst.isEmpty()) {
                try {
                    acceptAll(now, burst);
                } catch (IOException e) {
                    if (noReconnect || stopping) {
                        throw e;
                    }
                }
            }
            if (reject != null && !burst.isEmpty()) {
                rejectAll(now, burst);
            }
        }
        ObjectNode closed = TopologyView.JSON.createObjectNode();
        closed.put("event", "closed");
        closed.put("reason", stopping ? "signal" : "count");
        closed.put("requests", seen);
        status(closed, "stopped after " + seen + " request(s)");
        return ExitCode.OK;
    }

    /** A daemon restart (an upgrade, a crash): its listeners died with it, and the consumer registers again. */
    private final class Events implements ReconnectingConsumer.Events {
        @Override
        public void disconnected(String why) {
            if (noReconnect) {
                lost = why;
                consumer.close();
                return;
            }
            ObjectNode gone = TopologyView.JSON.createObjectNode();
            gone.put("event", "disconnected");
            gone.put("why", why);
            say(gone, why + "; registering again when the daemon is back");
        }

        @Override
        public void reconnected(ReconnectingConsumer.Registration r) {
            ObjectNode back = listening(r.me(), r.listeners().get(0));
            back.put("event", "reconnected");
            say(back, "registered again: listener " + r.listeners().get(0).listenerId());
        }

        @Override
        public void refused(RequestRefused why) {
            refusedAgain = true;
            terminal.err().println("cmdemux: LISTEN refused: " + why);
        }

        private void say(ObjectNode node, String text) {
            try {
                status(node, text);
            } catch (JsonProcessingException e) {
                throw new IllegalStateException("a status line that Jackson cannot write: " + e.getMessage(), e);
            }
        }
    }

    /**
     * Answers a burst of requests with REPs (QPN and PSN at random) without waiting for each reply, as
     * a busy rdma_cm server would: a round trip per connection would cap the rate at one per round trip.
     * Prints each connection's local comm ID as its reply comes.
     */
    private void acceptAll(ControlClient client, List<DeliveredRequest> burst) throws IOException {
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        List<Acceptance> acceptances = new ArrayList<>(burst.size());
        for (DeliveredRequest r : burst) {
            acceptances.add(new Acceptance(r.traceId(), rnd.nextInt(1, 0xffffff), rnd.nextInt(0xffffff), 1, 1, 7, false,
                    true, new byte[0]));
        }
        List<CompletableFuture<Integer>> comms = client.acceptAll(acceptances);
        for (int i = 0; i < burst.size(); i++) {
            String trace = Long.toUnsignedString(burst.get(i).traceId());
            int comm;
            try {
                comm = comms.get(i).join();
            } catch (CompletionException e) {
                if (e.getCause() instanceof RequestRefused refused) {
                    terminal.err().println("cmdemux: ACCEPT of trace " + trace + " refused: " + refused);
                    continue;
                }
                throw e.getCause() instanceof IOException io ? io
                        : new IOException("ACCEPT of trace " + trace + ": " + e.getCause(), e.getCause());
            }
            ObjectNode a = TopologyView.JSON.createObjectNode();
            a.put("event", "accepted");
            a.put("traceId", trace);
            a.put("localCommId", Integer.toUnsignedLong(comm));
            out.println(TopologyView.JSON.writeValueAsString(a));
        }
        out.flush();
    }

    /**
     * Answers a burst of requests with REJs in one write, without waiting for each reply (ControlClient.rejectAll), as
     * {@link #acceptAll} does with REPs; a refusal is said on stderr, and a connection that has gone ends the burst
     * (the next take waits for the next daemon, or says why there is none).
     */
    private void rejectAll(ControlClient client, List<DeliveredRequest> burst) {
        List<Rejection> rejections = new ArrayList<>(burst.size());
        for (DeliveredRequest r : burst) {
            rejections.add(new Rejection(r.traceId(), reject, null, null));
        }
        List<CompletableFuture<Void>> done = client.rejectAll(rejections);
        for (int i = 0; i < burst.size(); i++) {
            try {
                done.get(i).join();
            } catch (CompletionException e) {
                if (!(e.getCause() instanceof RequestRefused refused)) {
                    return;
                }
                terminal.err().println("cmdemux: REJECT of trace " + Long.toUnsignedString(burst.get(i).traceId())
                        + " refused: " + refused);
            }
        }
    }

    /** Prints what happened to accepted connections since the last look (RTU, DREQ, timeouts). */
    private void printEvents(ControlClient client) throws Exception {
        io.cmdemux.control.protocol.CmEventInfo e;
        while ((e = client.nextEvent(Duration.ZERO)) != null) {
            ObjectNode j = TopologyView.JSON.createObjectNode();
            j.put("event", e.eventName());
            j.put("traceId", Long.toUnsignedString(e.traceId()));
            j.put("localCommId", Integer.toUnsignedLong(e.localCommId()));
            if (e.reason() != 0) {
                j.put("reason", e.reason());
            }
            out.println(TopologyView.JSON.writeValueAsString(j));
            out.flush();
        }
    }

    private ListenSpec spec() {
        InetAddress a = InetAddresses.parse(ip);
        PortSpace space = PortSpace.parse(ps);
        if (port < 0 || port > 0xffff) {
            throw new IllegalArgumentException("--port " + port + " is not 0-65535");
        }
        ListenSpec s = ListenSpec.of(space, a, port);
        if (afonly != null) {
            s = s.withAfonly(afonly);
        }
        if (scope != 0) {
            s = s.withBoundIfindex(scope);
        }
        return s;
    }

    private void status(ObjectNode node, String text) throws JsonProcessingException {
        if (json) {
            out.println(TopologyView.JSON.writeValueAsString(node));
            out.flush();
        } else {
            terminal.err().println("cmdemux: " + text);
        }
    }

    private static ObjectNode listening(ConsumerInfo me, ListenerInfo l) {
        ObjectNode o = TopologyView.JSON.createObjectNode();
        o.put("event", "listening");
        o.put("listenerId", l.listenerId());
        o.put("consumerId", me.consumerId());
        ObjectNode ns = o.putObject("namespace");
        ns.put("inode", me.netns().inode());
        ns.put("name", me.netnsName());
        o.put("via", me.via() == io.cmdemux.control.protocol.Via.HOST_SOCKET ? "host-socket" : "abstract");
        o.put("ps", l.spec().portSpace().cliName());
        o.put("address", l.spec().address() == null ? "ib" : InetAddresses.toText(l.spec().address()));
        o.put("port", l.spec().port());
        o.put("afonly", l.spec().afonly());
        return o;
    }

    static ObjectNode requestJson(DeliveredRequest r) {
        PacketMeta m = r.meta();
        ObjectNode o = TopologyView.JSON.createObjectNode();
        o.put("event", "req");
        o.put("traceId", Long.toUnsignedString(r.traceId()));
        o.put("listenerId", r.listenerId());
        o.put("localCommId", m.localCommId());
        o.put("serviceId", String.format("0x%016x", m.serviceId()));
        m.portSpace().ifPresent(p -> o.put("ps", p.cliName()));
        o.put("port", m.port());
        ObjectNode peer = o.putObject("peer");
        peer.put("ip", m.srcIp() == null ? null : InetAddresses.toText(m.srcIp()));
        peer.put("port", m.srcPort());
        peer.put("gid", m.peerGid() == null ? null : m.peerGid().toString());
        ObjectNode local = o.putObject("local");
        local.put("ip", m.dstIp() == null ? null : InetAddresses.toText(m.dstIp()));
        local.put("port", m.port());
        o.put("device", m.key().device());
        o.put("sidr", m.sidr());
        o.put("frameLength", r.frame().length);
        ObjectNode d = o.putObject("decision");
        d.put("outcome", r.decision().outcome().name().toLowerCase());
        ObjectNode ns = d.putObject("namespace");
        ns.put("inode", r.decision().netnsInode());
        ns.put("name", r.netnsName());
        d.put("ifindex", r.decision().ifindex());
        d.put("mode", r.decision().mode() == null ? null : r.decision().mode().cliName());
        d.put("topologyGeneration", r.decision().topologyGeneration());
        return o;
    }

    private static String hostPort(InetAddress a, int port) {
        if (a == null) {
            return "ib:" + port;
        }
        String t = InetAddresses.toText(a);
        return (t.indexOf(':') >= 0 ? "[" + t + "]" : t) + ":" + port;
    }
}
