package io.cmdemux.observer.nldev;

import io.cmdemux.namespaces.SnapshotFile;
import io.cmdemux.netdev.MalformedException;
import io.cmdemux.netdev.NlMessage;
import io.cmdemux.observer.LabFixtures;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The kernel's real nldev replies (the lab's rdma/init.pcap), cut short or with bytes changed: each decodes or
 * is a MalformedException, and a dump of them counts one skip per message at most.
 */
class NldevDecoderProperties {
    private static final List<byte[]> REPLIES = replies();

    private static List<byte[]> replies() {
        try {
            List<byte[]> out = new ArrayList<>();
            for (Path d : LabFixtures.withTrace()) {
                out.addAll(SnapshotFile.readNetlinkPcap(d.resolve("rdma/init.pcap")));
            }
            return out;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Provide
    Arbitrary<byte[]> mutated() {
        return Combinators.combine(Arbitraries.of(REPLIES), Arbitraries.integers().between(0, 2000),
                Arbitraries.bytes(), Arbitraries.integers().between(0, 1)).as((m, at, b, how) -> {
                    byte[] c = m.clone();
                    int i = Math.min(at, c.length - 1);
                    if (how == 0) {
                        return Arrays.copyOf(c, Math.max(i, 0));
                    }
                    c[i] = b;
                    return c;
                });
    }

    @Property(tries = 20000)
    void aMutatedReplyDecodesOrIsMalformed(@ForAll("mutated") byte[] bytes) {
        List<NlMessage> msgs;
        try {
            msgs = NlMessage.split(ByteBuffer.wrap(bytes));
        } catch (MalformedException e) {
            return;
        }
        for (NlMessage m : msgs) {
            try {
                Nldev.link(m);
            } catch (MalformedException e) {
                // typed
            }
            try {
                Nldev.cmIds(m);
            } catch (MalformedException e) {
                // typed
            }
        }
        List<String> skipped = new ArrayList<>();
        NldevDump.of(msgs, skipped);
        if (skipped.size() > msgs.size()) {
            throw new AssertionError(skipped.size() + " skips for " + msgs.size() + " messages");
        }
    }
}
