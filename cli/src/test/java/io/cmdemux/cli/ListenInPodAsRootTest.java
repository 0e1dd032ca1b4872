package io.cmdemux.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.cmdemux.control.server.ControlLab;
import io.cmdemux.control.server.ControlServer;
import io.cmdemux.ingress.resolve.Listener;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** `cmdemux listen` run as a process in a pod: the kernel, not the message, places it there. Needs root. */
class ListenInPodAsRootTest {
    private static final String IP_A = "10.213.1.2";
    private ControlLab lab;
    private String podA;

    @BeforeEach
    void setUp() throws Exception {
        lab = new ControlLab("lp");
        podA = lab.pod("podA", IP_A + "/24");
        lab.start(ControlServer.Config.defaults(), null);
        lab.awaitReady(podA, IP_A);
    }

    @AfterEach
    void tearDown() {
        lab.close();
    }

    @Test
    void aProcessStartedInAPodIsPlacedInThatPodOnTheHostSocket() throws Exception {
        ListenProcess p = ListenProcess.start(podA, "--socket", lab.hostSocket.toString(), "--ip", "0.0.0.0", "--port",
                "7475", "--json");
        try {
            JsonNode listening = p.nextJson();
            assertThat(listening.path("event").asText()).isEqualTo("listening");
            assertThat(listening.path("via").asText()).isEqualTo("host-socket");
            assertThat(listening.path("namespace").path("inode").asLong()).isEqualTo(lab.id(podA).inode());
            assertThat(listening.path("namespace").path("name").asText()).isEqualTo(podA);
            Listener l = lab.listener(x -> x.port() == 7475);
            assertThat(l.netns()).isEqualTo(lab.id(podA));
        } finally {
            p.stop();
        }
    }
}
