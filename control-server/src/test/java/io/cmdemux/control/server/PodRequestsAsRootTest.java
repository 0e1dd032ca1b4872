package io.cmdemux.control.server;

import io.cmdemux.control.client.ControlClient;
import io.cmdemux.control.protocol.CliMessages;
import io.cmdemux.control.protocol.CniCall;
import io.cmdemux.control.protocol.CniMessages;
import io.cmdemux.control.protocol.ProgramReply;
import io.cmdemux.control.protocol.ConsumerInfo;
import io.cmdemux.control.protocol.Frame;
import io.cmdemux.control.protocol.Record;
import io.cmdemux.control.protocol.Wire;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cmdemux.namespaces.testkit.Host;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * POD_REGISTER, POD_UNREGISTER and CNI are for root on the host socket in the host namespace:
 * the CNI plugin runs there. A pod's consumer, a host-socket client whose socket was made in a pod,
 * and a process of another user all get EPERM, and the handler never hears of them.
 */
class PodRequestsAsRootTest {
    private ControlLab lab;
    private String pod;
    private final List<String> heard = new CopyOnWriteArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        lab = new ControlLab("pr");
        pod = lab.pod("p", "10.214.1.2/24");
        lab.start(ControlServer.Config.defaults(), null, new PodHandler() {
            @Override
            public ProgramReply cni(CniCall call, ConsumerInfo caller) {
                heard.add("cni " + call.env().get("CNI_COMMAND"));
                return new ProgramReply(0, "{}".getBytes(StandardCharsets.UTF_8), "ran\n");
            }

            @Override
            public JsonNode register(ObjectNode registration, ConsumerInfo caller) {
                heard.add("register");
                return registration;
            }

            @Override
            public JsonNode unregister(ObjectNode key, ConsumerInfo caller) {
                heard.add("unregister");
                return key;
            }
        });
        lab.awaitReady(pod, "10.214.1.2");
    }

    @AfterEach
    void tearDown() {
        lab.close();
    }

    private static List<Record> json(String s) {
        return List.of(Record.mandatory(Wire.R_JSON, s.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void rootOnTheHostSocketIsHeard() throws Exception {
        ControlClient host = lab.hostSocketClient(null);
        Frame cni = CniMessages.cniRequest(0, Map.of("CNI_COMMAND", "VERSION"), new byte[0]);
        Frame r = host.call(Wire.CNI, cni.records(), Duration.ofSeconds(5));

        assertThat(r.status()).isEqualTo(Wire.OK);
        ProgramReply reply = CniMessages.cniReply(r);
        assertThat(reply.exitCode()).isZero();
        assertThat(reply.stderr()).isEqualTo("ran\n");
        assertThat(host.call(Wire.POD_REGISTER, json("{\"a\":1}"), Duration.ofSeconds(5)).status()).isEqualTo(Wire.OK);
        assertThat(host.call(Wire.POD_UNREGISTER, json("{\"a\":1}"), Duration.ofSeconds(5)).status())
                .isEqualTo(Wire.OK);
        assertThat(heard).containsExactly("cni VERSION", "register", "unregister");
    }

    /**
     * CLI: EOPNOTSUPP until a handler is installed (the client then runs the verb itself), then the handler's
     * answer; EINVAL for no arguments; EPERM from a pod, as for CNI.
     */
    @Test
    void cliIsForRootOnTheHostSocketOnceAHandlerIsInstalled() throws Exception {
        ControlClient host = lab.hostSocketClient(null);
        Frame cli = CliMessages.cliRequest(0, List.of("gids", "--json"));
        assertThat(host.call(Wire.CLI, cli.records(), Duration.ofSeconds(5)).status()).isEqualTo(Wire.EOPNOTSUPP);

        lab.server.onCli((args, caller) -> {
            heard.add("cli " + String.join(" ", args) + " from pid " + caller.pid());
            return new ProgramReply(1, "[]\n".getBytes(StandardCharsets.UTF_8), "none\n");
        });
        Frame r = host.call(Wire.CLI, cli.records(), Duration.ofSeconds(5));

        assertThat(r.status()).isEqualTo(Wire.OK);
        ProgramReply reply = CliMessages.cliReply(r);
        assertThat(reply.exitCode()).isEqualTo(1);
        assertThat(new String(reply.stdout(), StandardCharsets.UTF_8)).isEqualTo("[]\n");
        assertThat(reply.stderr()).isEqualTo("none\n");
        assertThat(heard).containsExactly("cli gids --json from pid " + ProcessHandle.current().pid());
        assertThat(host.call(Wire.CLI, List.of(), Duration.ofSeconds(5)).status()).isEqualTo(Wire.EINVAL);
        assertThat(lab.podClient(pod).call(Wire.CLI, cli.records(), Duration.ofSeconds(5)).status())
                .isEqualTo(Wire.EPERM);
        assertThat(heard).hasSize(1);
    }

    @Test
    void aPodsConsumerAndAPodMadeSocketOnTheHostSocketAreRefused() throws Exception {
        ControlClient inPod = lab.podClient(pod);
        ControlClient podSocketOnHostPath = lab.hostSocketClient(pod);
        for (ControlClient c : List.of(inPod, podSocketOnHostPath)) {
            Frame r;
            try {
                r = c.call(Wire.POD_REGISTER, json("{\"a\":1}"), Duration.ofSeconds(5));
            } catch (java.io.IOException closed) {
                continue; // the host socket refuses a peer whose socket and process disagree before any message
            }
            assertThat(r.status()).isEqualTo(Wire.EPERM);
            assertThat(r.text()).contains("host socket");
        }
        assertThat(inPod.call(Wire.CNI, CniMessages.cniRequest(0, Map.of("CNI_COMMAND", "ADD"), new byte[0]).records(),
                Duration.ofSeconds(5)).status())
                .isEqualTo(Wire.EPERM);
        assertThat(heard).isEmpty();
    }

    @Test
    void anotherUserOnTheHostSocketIsRefused() throws Exception {
        Host.requireCommand("setpriv", "util-linux");
        // Let everyone connect, so that only the uid check stands between user 65534 and the handler.
        Files.setPosixFilePermissions(lab.hostSocket.getParent(), PosixFilePermissions.fromString("rwx--x--x"));
        Files.setPosixFilePermissions(lab.hostSocket, PosixFilePermissions.fromString("rw-rw-rw-"));
        String py = String.join("\n",
                "import socket, struct",
                "s = socket.socket(socket.AF_UNIX)",
                "s.connect('" + lab.hostSocket + "')",
                "body = b'{\"a\":1}'",
                "rec = struct.pack('>HHI', " + Wire.R_JSON + ", " + Wire.RECORD_MANDATORY + ", 8 + len(body)) + body",
                "s.sendall(struct.pack('>BBHHHII', " + Wire.VERSION + ", " + Wire.POD_REGISTER + ", 0, "
                + Wire.FORMAT_RECORDS + ", 0, 16 + len(rec), 1) + rec)",
                "h = s.recv(16, socket.MSG_WAITALL)",
                "print(struct.unpack('>BBHHHII', h)[2])");
        Host.Result r = Host.run("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                "/usr/bin/python3", "-c", py);

        assertThat(r.exit()).as(r.stderr()).isZero();
        assertThat(r.stdout().strip()).isEqualTo(Integer.toString(Wire.EPERM));
        assertThat(heard).isEmpty();
        assertThat(lab.hostSocketClient(null).call(Wire.POD_UNREGISTER, json("{}"), Duration.ofSeconds(5)).status())
                .isEqualTo(Wire.OK);
    }

    @Test
    void badCniRecordsAreRefusedBeforeTheHandler() throws Exception {
        ControlClient host = lab.hostSocketClient(null);
        Frame r = host.call(Wire.CNI,
                List.of(Record.mandatory(Wire.R_CNI_ENV, "PATH=/tmp".getBytes(StandardCharsets.UTF_8)),
                Record.mandatory(Wire.R_CNI_STDIN, new byte[0])), Duration.ofSeconds(5));
        assertThat(r.status()).isEqualTo(Wire.EINVAL);
        assertThat(host.call(Wire.POD_REGISTER, json("[1]"), Duration.ofSeconds(5)).status()).isEqualTo(Wire.EINVAL);
        assertThat(heard).isEmpty();
    }
}
