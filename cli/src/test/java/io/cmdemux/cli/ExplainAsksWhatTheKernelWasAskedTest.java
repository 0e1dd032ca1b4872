package io.cmdemux.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cmdemux.gid.Gid;
import io.cmdemux.ingress.resolve.HostState;
import io.cmdemux.ingress.resolve.PacketMeta;
import io.cmdemux.ingress.resolve.QpType;
import io.cmdemux.ingress.resolve.ResolverMode;
import io.cmdemux.ingress.wire.PortSpace;
import io.cmdemux.namespaces.NetnsState;
import io.cmdemux.netdev.InetAddresses;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * `cmdemux explain` describes a request by its addresses, port space and QP type, and builds the rest
 * (SyntheticRequest). This holds that description against the requests the kernel lab's clients really
 * sent: for the first REQ or SIDR REQ of every comm ID in every recorded scenario, explain is asked about
 * the same request in the words a user would use (only what differs from a default is given), and its
 * kernel-mode answer must be what the guest kernel did (expected.tsv).
 */
class ExplainAsksWhatTheKernelWasAskedTest {
    private static final Path LAB = Path.of("../it/fixtures/lab");
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void explainGivesTheKernelsDecisionForEveryRecordedRequest() throws Exception {
        List<Path> scenarios = new ArrayList<>();
        try (Stream<Path> s = Files.list(LAB)) {
            s.filter(p -> Files.isRegularFile(p.resolve("expected.tsv"))).sorted().forEach(scenarios::add);
        }
        assertThat(scenarios).as("recorded scenarios under %s", LAB.toAbsolutePath()).hasSizeGreaterThan(30);
        int asked = 0;
        Set<String> outcomes = new HashSet<>();
        for (Path dir : scenarios) {
            ResolveOptions o = new ResolveOptions();
            o.lab = dir;
            HostState state = o.load(new java.io.PrintWriter(System.err, true));
            Map<String, String> want = LabCheckCommand.expected(dir);
            Set<Long> seen = new HashSet<>();
            for (ReplayCommand.Replayed r : ReplayCommand.replay(state, dir.resolve("cm.pcap"), null, 1,
                    List.of(ResolverMode.KERNEL))) {
                PacketMeta m = r.meta();
                if (!seen.add(m.localCommId())) {
                    continue; // a retransmission; the kernel decided on the first
                }
                String comm = String.format("0x%08x", m.localCommId());
                String kernel = want.get(comm);
                assertThat(kernel).as("%s: comm ID %s is in cm.pcap but not in expected.tsv", dir, comm).isNotNull();
                List<String> args = explainArgs(dir, m);
                Cli.Result res = Cli.run(args.toArray(String[]::new));
                assertThat(res.err()).as("%s %s", dir.getFileName(), args).isEmpty();
                JsonNode answer = JSON.readTree(res.out());
                assertThat(outcome(state, answer)).as("%s %s: explain %s", dir.getFileName(), comm,
                        String.join(" ", args)).isEqualTo(kernel);
                assertThat(res.exit()).isEqualTo(kernel.startsWith("deliver") ? ExitCode.OK : ExitCode.NO);
                outcomes.add(kernel.replaceAll(":.*", ""));
                asked++;
            }
        }
        assertThat(asked).isGreaterThan(60);
        assertThat(outcomes).as("the recordings hold every kind of answer")
                .containsExactlyInAnyOrder("deliver", "reject", "drop");
    }

    @Test
    void theDaemonsExplainQueryTakesTheCommandsOptions() {
        // explain's own options, not the host-state ones (--lab, --listener, --json ...) the
        // query gets from the daemon.
        Set<String> options = new HashSet<>();
        for (picocli.CommandLine.Model.OptionSpec o : new picocli.CommandLine(new ExplainCommand())
                .getCommandSpec().options()) {
            if (o.userObject() instanceof java.lang.reflect.Field f && f.getDeclaringClass() == ExplainCommand.class) {
                options.add(o.longestName().substring(2).replace('-', '_'));
            }
        }
        assertThat(options).isEqualTo(io.cmdemux.daemon.Queries.EXPLAIN_ARGS);
    }

    /**
     * What a user types: the request's addresses, and its port space, QP type and GID only
     * where they are not the defaults.
     */
    private static List<String> explainArgs(Path dir, PacketMeta m) {
        PortSpace ps = PortSpace.ofServiceId(m.serviceId()).orElseThrow();
        int port = (int) (m.serviceId() & 0xffff);
        List<String> a = new ArrayList<>(List.of("explain", "--lab", dir.toString(), "--mode", "kernel", "--json",
                "--dst", endpoint(m.dstIp(), port), "--src", endpoint(m.srcIp(), m.srcPort())));
        if (ps != PortSpace.TCP) {
            a.addAll(List.of("--ps", ps.cliName()));
        }
        QpType qp = m.sidr() ? QpType.UD : m.qpType();
        if (qp != QpType.defaultFor(ps)) {
            a.addAll(List.of("--qp-type", qp.name()));
        }
        if (!m.dgid().equals(Gid.ofIp(m.dstIp()))) {
            a.addAll(List.of("--dgid", m.dgid().toString()));
        }
        if (m.vlan().isPresent()) {
            a.addAll(List.of("--vlan", Integer.toString(m.vlan().getAsInt())));
        }
        a.addAll(List.of("--device", m.key().device()));
        return a;
    }

    private static String endpoint(InetAddress ip, int port) {
        String t = InetAddresses.toText(ip);
        return (t.contains(":") ? "[" + t + "]" : t) + ":" + port;
    }

    /** deliver:NS | reject:N | drop, the words of expected.tsv, from explain's JSON. */
    private static String outcome(HostState state, JsonNode d) {
        switch (d.path("outcome").asText()) {
            case "deliver": {
                long inode = d.path("namespace").path("inode").asLong();
                NetnsState ns = state.topology().namespaces().stream().filter(n -> n.id().inode() == inode).findFirst()
                        .orElseThrow();
                return "deliver:" + (ns.host() ? "init" : ns.displayName());
            }
            case "reject":
                return "reject:" + d.path("rejectReason").asInt();
            default:
                return d.path("outcome").asText();
        }
    }
}
