package io.cmdemux.it;

import static io.cmdemux.namespaces.testkit.Host.bash;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cmdemux.gid.Gid;
import io.cmdemux.ingress.wire.L2Header;
import io.cmdemux.ingress.wire.L3Header;
import io.cmdemux.ingress.wire.Mad;
import io.cmdemux.ingress.wire.PortSpace;
import io.cmdemux.ingress.wire.RdmaCmRequests;
import io.cmdemux.ingress.wire.RoceFrameBuilder;
import io.cmdemux.namespaces.NetnsExecutor;
import io.cmdemux.namespaces.testkit.Host;
import io.cmdemux.namespaces.testkit.Netns;
import io.cmdemux.netdev.HwAddr;
import io.cmdemux.netdev.InetAddresses;
import io.cmdemux.netdev.PacketSocket;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The demo's world, built with iproute2: a client namespace on one end of a veth whose other end
 * ("up", in the host) carries soft port rxe0; pods 1–3 with macvlans of up (10.88.0.11–13), pod 4
 * with a veth only (10.88.0.14, pinned in the client to up's MAC so its frames reach the port).
 */
final class ServeFixture implements AutoCloseable {
    static final ObjectMapper JSON = new ObjectMapper();
    final Netns ns;
    final String up;
    final String cli;
    final String bridge;
    final String[] pods = new String[5];
    final Path dir;
    final Path socket;
    final int metricsPort;
    Proc serve;
    private final List<Proc> others = new ArrayList<>();

    ServeFixture(String tag) throws IOException {
        this(tag, false);
    }

    /**
     * @param bridged put a namespace with a Linux bridge between the client and the uplink, where
     *     nftables bridge rules can lose chosen CM messages (packet sockets at either end see
     *     frames before any ingress rule, so loss must happen on the way)
     */
    ServeFixture(String tag, boolean bridged) throws IOException {
        Host.requireCommand("nft", "nftables");
        ns = new Netns(tag);
        up = ns.hostLink("up");
        ns.hostLink("v4");
        cli = ns.add("cli");
        bridge = bridged ? ns.add("br") : null;
        for (int i = 1; i <= 4; i++) {
            pods[i] = ns.add("pod" + i);
        }
        String p = ns.prefix();
        String wire = bridged
                ? "ip link add " + up + " type veth peer name " + p + "ba\n"
                        + "ip link set " + p + "ba netns " + bridge + "\n"
                        + "ip -n " + bridge + " link add " + p + "bb type veth peer name " + p + "upp\n"
                        + "ip -n " + bridge + " link set " + p + "upp netns " + cli + "\n"
                        + "ip -n " + bridge + " link add br0 type bridge\n"
                        + "ip -n " + bridge + " link set " + p + "ba master br0\n"
                        + "ip -n " + bridge + " link set " + p + "bb master br0\n"
                        + "ip -n " + bridge + " link set br0 up; ip -n " + bridge + " link set " + p + "ba up; ip -n "
                        + bridge + " link set " + p + "bb up\n"
                : "ip link add " + up + " type veth peer name " + p + "upp\n"
                        + "ip link set " + p + "upp netns " + cli + "\n";
        bash("set -e\n"
                + wire
                + "ip link set " + up + " up\n"
                + "ip -n " + cli + " addr add 10.88.0.99/24 dev " + p + "upp\n"
                + "ip -n " + cli + " link set " + p + "upp up\n"
                + "for i in 1 2 3; do\n"
                + "  ip link add " + p + "m$i link " + up + " type macvlan mode bridge\n"
                + "  ip link set " + p + "m$i netns " + p + "pod$i\n"
                + "  ip -n " + p + "pod$i link set " + p + "m$i name net1\n"
                + "  ip -n " + p + "pod$i link set net1 address 02:88:00:00:00:0$i\n"
                + "  ip -n " + p + "pod$i addr add 10.88.0.1$i/24 dev net1\n"
                + "  ip -n " + p + "pod$i link set net1 up\n"
                + "done\n"
                + "ip link add " + p + "v4 type veth peer name " + p + "v4p\n"
                + "ip link set " + p + "v4p netns " + p + "pod4\n"
                + "ip -n " + p + "pod4 addr add 10.88.0.14/24 dev " + p + "v4p\n"
                + "ip -n " + p + "pod4 link set " + p + "v4p up\n"
                + "ip link set " + p + "v4 up\n"
                + "ip -n " + cli + " neigh replace 10.88.0.14 lladdr $(cat /sys/class/net/" + up + "/address) dev " + p
                        + "upp nud permanent\n");
        dir = Files.createTempDirectory("cmdemux-it");
        socket = dir.resolve("cmdemux.sock");
        metricsPort = Binaries.freePort();
    }

    String clientIf() {
        return ns.prefix() + "upp";
    }

    /** The command line of `cmdemux serve` on this fixture's port, socket and metrics port, with {@code extra}. */
    List<String> serveCommand(String... extra) {
        List<String> args = new ArrayList<>(List.of("serve", "--rdma-port", "rxe0=" + up, "--control-socket",
                socket.toString(),
                "--metrics", "127.0.0.1:" + metricsPort));
        args.addAll(List.of(extra));
        return Binaries.cmdemux(null, args.toArray(String[]::new));
    }

    void startServe(String... extra) throws Exception {
        serve = new Proc(serveCommand(extra));
        long deadline = System.currentTimeMillis() + 30_000;
        while (System.currentTimeMillis() < deadline) {
            if (!serve.process.isAlive()) {
                throw new AssertionError("serve exited " + serve.process.exitValue() + ": "
                        + String.join("\n", serve.err));
            }
            if (http("/readyz").statusCode() == 200) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("serve not ready within 30 s: " + String.join("\n", serve.err));
    }

    HttpResponse<String> http(String path) throws InterruptedException {
        try {
            return HttpClient.newHttpClient()
                    .send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort + path)).build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            return new FakeResponse(e);
        }
    }

    /** The value of one Prometheus sample line, e.g. {@code frames_total{result="malformed"}}, or 0. */
    double metric(String sample) throws InterruptedException {
        for (String l : http("/metrics").body().split("\n")) {
            if (l.startsWith(sample + " ")) {
                return Double.parseDouble(l.substring(sample.length() + 1).trim());
            }
        }
        return 0;
    }

    /** Starts `cmdemux listen` in a pod and waits until it is registered. */
    Proc listen(int pod, String ip, int port, String... extra) throws Exception {
        List<String> args = new ArrayList<>(List.of("listen", "--ip", ip, "--port", Integer.toString(port)));
        args.addAll(List.of(extra));
        Proc p = new Proc(Binaries.cmdemux(pods[pod], args.toArray(String[]::new)));
        others.add(p);
        if (!p.await(l -> l.contains("listening on"), 20_000)) {
            throw new AssertionError("listen in pod" + pod + " did not register: " + p.err);
        }
        return p;
    }

    /** `cmdemux connect --json` from the client namespace. */
    JsonNode connect(String dst, long timeoutMillis, String... extra) throws Exception {
        List<String> args = new ArrayList<>(List.of("connect", "--dst", dst, "--timeout",
                Long.toString(timeoutMillis), "--json"));
        args.addAll(List.of(extra));
        Proc.Run r = Proc.run(Binaries.cmdemux(cli, args.toArray(String[]::new)), 60_000);
        String last = r.out().isBlank() ? null : r.out().substring(r.out().lastIndexOf('\n') + 1);
        if (last == null) {
            throw new AssertionError("connect printed nothing; stderr: " + r.err());
        }
        return JSON.readTree(last);
    }

    private JsonNode clientLink;

    /** The client's end of the uplink, as `ip -j link` shows it (it does not change). */
    private JsonNode clientLink() throws IOException {
        if (clientLink == null) {
            clientLink = JSON.readTree(Host.sh("ip", "-n", cli, "-j", "link", "show", "dev", clientIf())).get(0);
        }
        return clientLink;
    }

    /** Frames a peer could send, sent from the client namespace onto the wire. */
    void inject(List<byte[]> frames) throws Exception {
        int ifindex = clientLink().get("ifindex").asInt();
        try (NetnsExecutor exec = new NetnsExecutor(1)) {
            exec.call("/run/netns/" + cli, () -> {
                try (PacketSocket s = PacketSocket.open(ifindex, null, 100)) {
                    for (byte[] fr : frames) {
                        s.send(fr);
                    }
                }
                return null;
            });
        }
    }

    /**
     * A REQ from the client (10.88.0.99) to pod {@code dst} (one of 10.88.0.11–13) and {@code port},
     * with comm ID {@code commId}.
     */
    byte[] req(int commId, String dst, int port) throws Exception {
        HwAddr src = HwAddr.parse(clientLink().get("address").asText());
        HwAddr dmac = HwAddr.parse("02:88:00:00:00:0" + dst.charAt(dst.length() - 1));
        var s = InetAddresses.parse("10.88.0.99");
        var d = InetAddresses.parse(dst);
        var r = RdmaCmRequests.req(commId, 0x0288000000000099L, 0x21, 0x200, PortSpace.TCP, s, 40001, d, port, null);
        return RoceFrameBuilder.cmFrame(new L2Header(dmac, src, null), L3Header.of(Gid.ofIp(s), Gid.ofIp(d)), 0xc001,
                0xffff, 0, Mad.of(r, commId));
    }

    /** REQ lines a listener printed. */
    static List<JsonNode> reqs(Proc listener) throws IOException {
        List<JsonNode> out = new ArrayList<>();
        for (String l : listener.out) {
            if (l.startsWith("{")) {
                JsonNode j = JSON.readTree(l);
                if ("req".equals(j.path("event").asText())) {
                    out.add(j);
                }
            }
        }
        return out;
    }

    boolean nftTablePresent() {
        return Host.run("nft", "list", "table", "netdev", "cmdemux").exit() == 0;
    }

    @Override
    public void close() {
        for (Proc p : others) {
            p.close();
        }
        if (serve != null) {
            serve.close();
        }
        ns.close();
        Host.run("nft", "delete", "table", "netdev", "cmdemux");
    }

    /** A failed HTTP call, as a response with status 0. */
    private record FakeResponse(IOException e) implements HttpResponse<String> {
        public int statusCode() { return 0; }
        public HttpRequest request() { return null; }
        public java.util.Optional<HttpResponse<String>> previousResponse() { return java.util.Optional.empty(); }
        public java.net.http.HttpHeaders headers() { return java.net.http.HttpHeaders.of(java.util.Map.of(),
                (a, b) -> true); }
        public String body() { return ""; }
        public java.util.Optional<javax.net.ssl.SSLSession> sslSession() { return java.util.Optional.empty(); }
        public URI uri() { return null; }
        public HttpClient.Version version() { return HttpClient.Version.HTTP_1_1; }
    }
}
