package io.cmdemux.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.cmdemux.control.client.ControlClient;
import io.cmdemux.control.protocol.QueryKind;
import io.cmdemux.control.protocol.RequestRefused;
import io.cmdemux.namespaces.NetnsExecutor;
import io.cmdemux.namespaces.testkit.Host;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The control sockets' settings reach the daemon from a config file (docs/SERVE.md): the host socket's
 * group, the abstract name every namespace gets, and whether pods may QUERY. Before, none of these
 * could be set from `serve` at all. Needs root, nftables and groupadd (passwd).
 */
class ServeConfigAsRootTest {
    @Test
    void aConfigFileSetsTheSocketsGroupTheirNameInEveryPodAndPodQueries() throws Exception {
        Host.requireRoot();
        Host.requireCommand("groupadd", "passwd");
        String group = "cmdemux-it" + ProcessHandle.current().pid() % 100_000;
        String name = "cmdemux-it-" + ProcessHandle.current().pid();
        Host.sh("groupadd", "--system", group);
        try (ServeFixture f = new ServeFixture("cf")) {
            java.nio.file.Path conf = f.dir.resolve("serve.conf");
            Files.writeString(conf, "# settings of the control API\ncontrol-socket-group = " + group
                    + "\nabstract-name = " + name + "\nqueries-from-pods = true\n");
            f.startServe("--config", conf.toString());

            GroupPrincipal owner = Files.readAttributes(f.socket, java.nio.file.attribute.PosixFileAttributes.class,
                    LinkOption.NOFOLLOW_LINKS).group();
            assertThat(owner.getName()).isEqualTo(group);
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f.socket))).isEqualTo("rw-rw----");

            // A pod finds the daemon on the configured name, and may ask about the whole host.
            JsonNode topology;
            try (NetnsExecutor exec = new NetnsExecutor(1)) {
                topology = exec.call("/run/netns/" + f.pods[1], () -> {
                    try (ControlClient c = ControlClient.connect(ControlClient.abstractAddress(name),
                            Duration.ofSeconds(5))) {
                        return c.query(QueryKind.TOPOLOGY, null);
                    } catch (RequestRefused e) {
                        throw new AssertionError("a pod's QUERY topology was refused although queries-from-pods ="
                                + " true: " + e, e);
                    }
                });
            }
            assertThat(topology.path("namespaces").size()).as("the host, the client and the four pods at least")
                    .isGreaterThanOrEqualTo(6);
        } finally {
            Host.run("groupdel", group);
        }
    }
}
