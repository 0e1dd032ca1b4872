package io.cmdemux.pods;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.cmdemux.gid.Gid;
import io.cmdemux.gid.GidType;
import io.cmdemux.namespaces.NetnsDiscovery;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.netdev.InetAddresses;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PodStoreTest {
    @TempDir
    Path dir;

    static PodRegistration reg(String network, String id) {
        GidAssignment g = new GidAssignment(InetAddresses.parse("10.77.0.2"), 3, Gid.parse("::ffff:10.77.0.2"),
                GidType.ROCE_V2);
        Attachment a = new Attachment("net1", 2, "soft0", 1, Attachment.ETHERNET, List.of(g), -1, -1);
        return new PodRegistration(new PodKey(network, id, "net1"), "/run/netns/p1", 4026532460L,
                new PodRef("default", "rdma-0", null), GidType.ROCE_V2, List.of(a));
    }

    @Test
    void aRegistrationReadsBackAsWrittenAndDeletesByKey() throws Exception {
        PodStore store = new PodStore(dir.resolve("pods"));
        PodRegistration r = reg("rdma-net", "c1");
        store.write(r);
        store.write(reg("a/b\0c", "c2")); // a network name no file name could hold

        assertThat(store.readAll().registrations()).containsExactlyInAnyOrder(r, reg("a/b\0c", "c2"));
        assertThat(store.delete(r.key())).isTrue();
        assertThat(store.delete(r.key())).isFalse();
        assertThat(store.readAll().registrations()).containsExactly(reg("a/b\0c", "c2"));
        assertThat(Files.getPosixFilePermissions(store.dir())).extracting(Object::toString)
                .containsExactlyInAnyOrder("OWNER_READ", "OWNER_WRITE", "OWNER_EXECUTE");
    }

    @Test
    void badFilesAreReportedNotTrusted() throws Exception {
        PodStore store = new PodStore(dir);
        Files.writeString(dir.resolve("x.json"), "{\"network\":\"n\"}");
        PodRegistration r = reg("n", "c1");
        Files.writeString(dir.resolve("00000000000000000000000000000000.json"),
                new ObjectMapper().writeValueAsString(PodJson.json(r)));

        PodStore.Loaded l = store.readAll();

        assertThat(l.registrations()).isEmpty();
        assertThat(l.problems()).hasSize(2).anySatisfy(p -> assertThat(p).contains("belongs in"));
        assertThat(new PodStore(dir.resolve("missing")).readAll().registrations()).isEmpty();
    }

    @Test
    void theJsonFormIsCheckedFieldByField() {
        ObjectMapper m = new ObjectMapper();
        assertThatThrownBy(() -> PodJson.registration(m.readTree("{\"network\":\"n\",\"containerId\":\"c\","
                + "\"ifname\":\"i\",\"netns\":{\"path\":\"rel\",\"inode\":1}}")))
                .hasMessageContaining("absolute");
        assertThatThrownBy(() -> PodJson.registration(m.readTree("{\"network\":\"n\",\"containerId\":\"c\","
                + "\"ifname\":\"i\",\"netns\":{\"path\":\"/p\",\"inode\":-1}}")))
                .hasMessageContaining("inode");
        assertThatThrownBy(() -> PodJson.registration(m.readTree("{\"network\":\"n\",\"containerId\":\"\","
                + "\"ifname\":\"i\",\"netns\":{\"path\":\"/p\",\"inode\":1}}")))
                .hasMessageContaining("containerId");
    }

    @Test
    void aNamespaceClaimMustBeAPodsNamespaceFileStillHoldingTheClaimedNamespace() throws Exception {
        NetnsId host = NetnsDiscovery.idOf(Path.of("/proc/self/ns/net"));
        assertThatThrownBy(() -> NetnsClaims.resolve("/proc/self/ns/net", host)).hasMessageContaining("host's own");
        Path plain = Files.writeString(dir.resolve("not-a-netns"), "");
        assertThatThrownBy(() -> NetnsClaims.resolve(plain.toString(), host))
                .hasMessageContaining("not a network namespace file");
        assertThatThrownBy(() -> NetnsClaims.resolve(dir.resolve("gone").toString(), host))
                .isInstanceOfSatisfying(NetnsClaims.Refused.class, e -> assertThat(e.gone()).isTrue());
        assertThatThrownBy(() -> NetnsClaims.resolve("relative/path", host)).hasMessageContaining("absolute");
    }
}
