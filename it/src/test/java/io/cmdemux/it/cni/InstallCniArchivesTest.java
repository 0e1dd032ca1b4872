package io.cmdemux.it.cni;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.namespaces.testkit.Host;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * What scripts/install-cni leaves for the daemon's start: a class archive that this JVM accepts for the installed
 * jar and that holds the daemon's classes (those CdsTraining loads from the list scripts/cds-serve-classes
 * recorded), so that cmdemux.service's {@code -XX:SharedArchiveFile} takes effect; and the daemon's JVM options,
 * which the JVM takes together with that archive, as the unit and the image start it.
 */
class InstallCniArchivesTest {
    @Test
    void theDaemonsArchiveIsValidForTheInstalledJarAndHoldsTheDaemonsClasses() {
        Path home = CniNode.pluginDir().getParent().resolve("home");
        Host.Result r = Host.run("java", "-XX:SharedArchiveFile=" + home.resolve("serve.jsa"),
                "-XX:+PrintSharedArchiveAndExit", "-jar", home.resolve("cmdemux.jar").toString());
        assertThat(r.exit()).as("%s", r.stderr()).isZero();
        assertThat(r.stdout()).contains("archive is valid")
                // loaded only on serve's way to ready (the control server, its Netty transport, the HTTP endpoints,
                // the CNI service): the training has them from the recorded list, no verb loads them
                .contains("io.cmdemux.control.server.ControlServer app_loader")
                .contains("io.netty.channel.epoll.EpollServerDomainSocketChannel app_loader")
                .contains("io.netty.handler.codec.http.HttpServerCodec app_loader")
                .contains("io.cmdemux.cni.CniService app_loader");
    }

    @Test
    void theInstalledJvmOptionsAndTheArchiveStartTheJarTogether() throws Exception {
        Path home = CniNode.pluginDir().getParent().resolve("home");
        assertThat(Files.readString(home.resolve("serve.jvm-options")))
                .isEqualTo(Files.readString(Path.of("..", "scripts", "deploy", "serve.jvm-options")));
        // -Xshare:on: an archive that cannot be mapped with these options is an error, not a silent slow start
        Host.Result r = Host.run("java", "@" + home.resolve("serve.jvm-options"),
                "-XX:SharedArchiveFile=" + home.resolve("serve.jsa"), "-Xshare:on", "-Xlog:cds=info",
                "-jar", home.resolve("cmdemux.jar").toString(), "--version");
        assertThat(r.exit()).as("%s%s", r.stdout(), r.stderr()).isZero();
        assertThat(r.stdout()).contains("Mapped dynamic region");
    }

    @Test
    void theUnitAndTheImageStartTheDaemonWithTheOptionsFile() throws Exception {
        Path deploy = Path.of("..", "scripts", "deploy");
        assertThat(Files.readString(deploy.resolve("cmdemux.service")))
                .containsPattern("(?m)^ExecStart=/usr/bin/java @/opt/cmdemux/serve.jvm-options "
                        + "-XX:SharedArchiveFile=/opt/cmdemux/serve.jsa -jar /opt/cmdemux/cmdemux.jar serve ");
        String image = Files.readString(deploy.resolve("Containerfile"));
        assertThat(image).contains("COPY scripts/deploy/serve.jvm-options /opt/cmdemux/serve.jvm-options")
                .contains("ENTRYPOINT [\"java\", \"@/opt/cmdemux/serve.jvm-options\", "
                        + "\"-XX:SharedArchiveFile=/opt/cmdemux/serve.jsa\", \"-jar\", \"/opt/cmdemux/cmdemux.jar\"]");
    }
}
