package io.cmdemux.dataplane.cm;

import io.cmdemux.dataplane.consumer.NoConsumers;
import io.cmdemux.dataplane.metrics.Metrics;
import io.cmdemux.dataplane.reply.FrameSender;
import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.gid.Gid;
import io.cmdemux.ingress.wire.FrameResult;
import io.cmdemux.ingress.wire.L2Header;
import io.cmdemux.ingress.wire.L3Header;
import io.cmdemux.ingress.wire.Mad;
import io.cmdemux.ingress.wire.PortSpace;
import io.cmdemux.ingress.wire.RdmaCmRequests;
import io.cmdemux.ingress.wire.RoceDecoder;
import io.cmdemux.ingress.wire.RoceFrame;
import io.cmdemux.ingress.wire.RoceFrameBuilder;
import io.cmdemux.netdev.HwAddr;
import io.cmdemux.netdev.InetAddresses;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Comm IDs as cm_alloc_id hands them out: a cyclic counter XOR a random operand, never 0, and once
 * the counter has gone round, never one a live connection still has.
 */
class SessionsCommIdTest {

    @Test
    void theFirstRoundHandsOutDistinctIdsAndTheSecondSkipsThoseInUse() throws Exception {
        try (Sessions sessions = new Sessions(Sessions.Config.defaults(), new NoConsumers(), new Metrics(),
                0x0288000000000011L)) {
            Set<Integer> first = new HashSet<>();
            for (int i = 0; i < 10_000; i++) {
                assertThat(first.add(sessions.newCommId())).as("a new ID each time in the first round").isTrue();
            }
            assertThat(first).doesNotContain(0);

            sessions.issuedCommIds(0);
            int held = sessions.newCommId();
            int free = sessions.newCommId();
            assertThat(sessions.delivered(1, held, req(0x1234), (FrameSender) frame -> { }, "consumer")).isTrue();
            // Round two: the counter comes back to the values of held and free.
            sessions.issuedCommIds(1L << 32);
            assertThat(sessions.newCommId()).as("held is skipped while its connection lives").isEqualTo(free);
            sessions.forget(1);
            sessions.issuedCommIds(1L << 32);
            assertThat(sessions.newCommId()).as("and handed out again once it has gone").isEqualTo(held);
        }
    }

    @Test
    void aPrefetchOfAnyKeysChangesNothing() throws Exception {
        try (Sessions sessions = new Sessions(Sessions.Config.defaults(), new NoConsumers(), new Metrics(),
                0x0288000000000011L)) {
            int held = sessions.newCommId();
            assertThat(sessions.delivered(7, held, req(0x4321), (FrameSender) frame -> { }, "consumer")).isTrue();
            java.util.Random random = new java.util.Random(5);
            int[] remote = random.ints(64).toArray();
            long[] guids = random.longs(64).toArray();
            remote[3] = 0x4321;
            guids[3] = 0x0288000000000099L;
            sessions.prefetch(remote, guids, 64, Long.MIN_VALUE + 3);
            sessions.prefetch(remote, guids, 0, -1);
            assertThat(sessions.size()).isEqualTo(1);
            assertThat(sessions.duplicateReq((io.cmdemux.ingress.wire.CmReq) req(0x4321).mad().message())).isTrue();
            assertThat(sessions.duplicateReq((io.cmdemux.ingress.wire.CmReq) req(0x4322).mad().message())).isFalse();
            assertThat(sessions.newCommId()).as("the counter is not moved by a prefetch").isNotEqualTo(held);
        }
    }

    private static RoceFrame req(int commId) throws Exception {
        var src = InetAddresses.parse("10.88.0.99");
        var dst = InetAddresses.parse("10.88.0.11");
        var r = RdmaCmRequests.req(commId, 0x0288000000000099L, 0x21, 0x200, PortSpace.TCP, src, 40001,
                dst, 7471, null);
        byte[] f = RoceFrameBuilder.cmFrame(new L2Header(HwAddr.parse("02:88:00:00:00:01"),
                HwAddr.parse("02:88:00:00:00:99"), null), L3Header.of(Gid.ofIp(src), Gid.ofIp(dst)), 0xc001, 0xffff, 0,
                Mad.of(r, commId));
        return ((FrameResult.Decoded) RoceDecoder.decodeEthernet(f)).frame();
    }
}
