package io.cmdemux.netdev;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The RoCEv2 tap filter, judged by the kernel's own BPF: frames injected on one end of a veth
 * pair arrive on the other, and only UDP to 4791 passes. Needs root (creates a veth pair).
 */
class PacketSocketAsRootTest {
    private static String a;
    private static String b;
    private static int ifA;
    private static int ifB;

    @BeforeAll
    static void veth() throws Exception {
        String uid = new String(new ProcessBuilder("id", "-u").start().getInputStream().readAllBytes()).trim();
        if (!uid.equals("0")) {
            throw new AssertionError("this test needs root (it creates a veth pair)");
        }
        String tag = Integer.toString(ThreadLocalRandom.current().nextInt(36 * 36 * 36), 36);
        a = "cxps" + tag + "a";
        b = "cxps" + tag + "b";
        run("ip", "link", "add", a, "type", "veth", "peer", "name", b);
        run("ip", "link", "set", a, "up");
        run("ip", "link", "set", b, "up");
        ifA = ifindex(a);
        ifB = ifindex(b);
    }

    @AfterAll
    static void cleanUp() throws Exception {
        if (a != null) {
            new ProcessBuilder("ip", "link", "del", a).start().waitFor();
        }
    }

    private static void run(String... argv) throws Exception {
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) {
            throw new AssertionError(String.join(" ", argv) + ": " + out);
        }
    }

    /** Ethernet + IPv4 + UDP with the given ports (RFC 791/768 layouts); the payload carries a marker. */
    static byte[] udp4(int vlan, int dport, int flagsFrag, int protocol, int marker) {
        ByteBuffer f = ByteBuffer.allocate(64 + (vlan >= 0 ? 4 : 0));
        f.put(new byte[] {2, 0, 0, 0, 0, 2}).put(new byte[] {2, 0, 0, 0, 0, 1});
        if (vlan >= 0) {
            f.putShort((short) 0x8100).putShort((short) vlan);
        }
        f.putShort((short) 0x0800);
        f.put((byte) 0x45)
                .put((byte) 0)
                .putShort((short) 46)
                .putShort((short) 1)
                .putShort((short) flagsFrag)
                .put((byte) 64)
                .put((byte) protocol)
                .putShort((short) 0);
        f.put(new byte[] {(byte) 192, 0, 2, 1}).put(new byte[] {(byte) 192, 0, 2, 2});
        f.putShort((short) 40000).putShort((short) dport).putShort((short) 26).putShort((short) 0);
        f.putInt(marker);
        return f.array();
    }

    static byte[] udp6(int dport, int nextHeader, int marker) {
        ByteBuffer f = ByteBuffer.allocate(14 + 40 + 8 + 16);
        f.put(new byte[] {2, 0, 0, 0, 0, 2}).put(new byte[] {2, 0, 0, 0, 0, 1}).putShort((short) 0x86dd);
        f.putInt(0x60000000).putShort((short) 24).put((byte) nextHeader).put((byte) 64);
        f.put(InetAddresses.parse("2001:db8::1").getAddress()).put(InetAddresses.parse("2001:db8::2").getAddress());
        f.putShort((short) 40000).putShort((short) dport).putShort((short) 24).putShort((short) 0);
        f.putInt(marker);
        return f.array();
    }

    private static int marker(byte[] frame, boolean v6) {
        ByteBuffer f = ByteBuffer.wrap(frame);
        int off = f.getShort(12) == (short) 0x8100 ? 4 : 0;
        return f.getInt(off + (v6 ? 14 + 40 + 8 : 14 + 20 + 8));
    }

    @Test
    void onlyUdpToPort4791PassesTheFilterAndVlanTagsAreKept() throws Exception {
        try (PacketSocket tap = PacketSocket.open(ifA, ClassicBpf.udpDstPort(4791), 300);
                PacketSocket inject = PacketSocket.open(ifB, null, 300)) {
            inject.send(udp4(-1, 4791, 0, 17, 1));        // pass
            inject.send(udp4(-1, 53, 0, 17, 2));          // other port
            inject.send(udp4(-1, 4791, 0, 6, 3));         // TCP to 4791
            inject.send(udp4(-1, 4791, 0x2000 | 5, 17, 4)); // a fragment
            inject.send(udp4(100, 4791, 0, 17, 5));       // tagged: pass, tag kept
            inject.send(udp6(4791, 17, 6));               // pass
            inject.send(udp6(4792, 17, 7));               // other port
            List<Integer> seen = new ArrayList<>();
            List<Integer> vlans = new ArrayList<>();
            PacketSocket.Frame f;
            // Wait for the three frames that should pass, and a little more for any that should not;
            // a loaded machine may deliver late, so an empty receive alone does not end the wait.
            long deadline = System.currentTimeMillis() + 10_000;
            long quietUntil = Long.MAX_VALUE;
            while (System.currentTimeMillis() < Math.min(deadline, quietUntil)) {
                f = tap.receive();
                if (f == null) {
                    continue;
                }
                ByteBuffer bb = ByteBuffer.wrap(f.bytes());
                boolean tagged = bb.getShort(12) == (short) 0x8100;
                boolean v6 = bb.getShort(tagged ? 16 : 12) == (short) 0x86dd;
                seen.add(marker(f.bytes(), v6));
                vlans.add(tagged ? bb.getShort(14) & 0xfff : -1);
                if (seen.size() == 3) {
                    quietUntil = System.currentTimeMillis() + 500;
                }
            }
            assertThat(seen).containsExactly(1, 5, 6);
            assertThat(vlans).containsExactly(-1, 100, -1);
        }
    }

    @Test
    void framesWeSendAreNotReadBackOnTheSameSocket() throws Exception {
        try (PacketSocket tap = PacketSocket.open(ifA, ClassicBpf.udpDstPort(4791), 300)) {
            tap.send(udp4(-1, 4791, 0, 17, 9));
            assertThat(tap.receive()).isNull();
        }
    }

    @Test
    void oneBatchReceiveTakesEveryQueuedFrameInOrderWithVlanTagsPutBack() throws Exception {
        try (PacketSocket tap = PacketSocket.open(ifA, ClassicBpf.udpDstPort(4791), 300);
                PacketSocket inject = PacketSocket.open(ifB, null, 300)) {
            for (int m = 1; m <= 12; m++) {
                inject.send(udp4(m % 3 == 0 ? 200 + m : -1, 4791, 0, 17, m));
                inject.send(udp4(-1, 53, 0, 17, 100 + m)); // filtered out
            }
            PacketSocket.Batch batch = new PacketSocket.Batch(8);
            List<Integer> seen = new ArrayList<>();
            List<Integer> vlans = new ArrayList<>();
            List<Integer> sizes = new ArrayList<>();
            long deadline = System.currentTimeMillis() + 10_000;
            // Let all twelve reach the socket first, so that the batches are full ones.
            Thread.sleep(300);
            while (seen.size() < 12 && System.currentTimeMillis() < deadline) {
                int n = tap.receive(batch);
                if (n > 0) {
                    sizes.add(n);
                }
                for (int i = 0; i < n; i++) {
                    ByteBuffer bb = ByteBuffer.wrap(batch.frame(i));
                    boolean tagged = bb.getShort(12) == (short) 0x8100;
                    seen.add(marker(batch.frame(i), false));
                    vlans.add(tagged ? bb.getShort(14) & 0xfff : -1);
                    assertThat(batch.packetType(i)).isNotEqualTo(4); // never PACKET_OUTGOING
                }
            }
            assertThat(seen).containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12);
            assertThat(vlans).containsExactly(-1, -1, 203, -1, -1, 206, -1, -1, 209, -1, -1, 212);
            assertThat(sizes).first().isEqualTo(8); // the batch is filled from what was already queued
            assertThat(tap.receive(batch)).isZero(); // and then the receive timeout ends an empty wait
            assertThat(batch.size()).isZero();
        }
    }

    @Test
    void oneBatchSendPutsEveryQueuedFrameOnTheWireInOrderAndEmptiesTheBatch() throws Exception {
        try (PacketSocket tap = PacketSocket.open(ifA, ClassicBpf.udpDstPort(4791), 300);
                PacketSocket inject = PacketSocket.open(ifB, null, 300)) {
            // 204 bytes of room: add() says when the next frame would not fit.
            PacketSocket.SendBatch out = new PacketSocket.SendBatch(8, 3 * 68);
            List<Integer> refused = new ArrayList<>();
            for (int m = 1; m <= 5; m++) {
                byte[] frame = udp4(m == 2 ? 300 : -1, 4791, 0, 17, m);
                if (!out.add(frame)) {
                    refused.add(m);
                    inject.send(out);
                    assertThat(out.size()).isZero();
                    assertThat(out.add(frame)).isTrue();
                }
            }
            inject.send(out);
            assertThat(out.size()).isZero();
            List<Integer> seen = new ArrayList<>();
            List<Integer> vlans = new ArrayList<>();
            long deadline = System.currentTimeMillis() + 10_000;
            while (seen.size() < 5 && System.currentTimeMillis() < deadline) {
                PacketSocket.Frame f = tap.receive();
                if (f != null) {
                    ByteBuffer bb = ByteBuffer.wrap(f.bytes());
                    seen.add(marker(f.bytes(), false));
                    vlans.add(bb.getShort(12) == (short) 0x8100 ? bb.getShort(14) & 0xfff : -1);
                }
            }
            assertThat(refused).containsExactly(4); // 64 + 68 + 64 bytes fit, a fourth 64 did not
            assertThat(seen).containsExactly(1, 2, 3, 4, 5);
            assertThat(vlans).containsExactly(-1, 300, -1, -1, -1);
        }
    }

    @Test
    void anEmptyBatchReceiveWaitsForTheReceiveTimeout() throws Exception {
        try (PacketSocket tap = PacketSocket.open(ifA, ClassicBpf.udpDstPort(4791), 300)) {
            long t0 = System.nanoTime();
            assertThat(tap.receive(new PacketSocket.Batch(4))).isZero();
            assertThat((System.nanoTime() - t0) / 1_000_000).isBetween(250L, 5_000L);
        }
    }

    @Test
    void framesBeyondTheReceiveBufferAreCountedAsDropsByPacketStatistics() throws Exception {
        // A veth pair of its own: frames the other tests injected on the shared pair can still be on
        // their way through a loaded machine's backlog, and would be counted here.
        String tag = Integer.toString(ThreadLocalRandom.current().nextInt(36 * 36 * 36), 36);
        String da = "cxpd" + tag + "a";
        run("ip", "link", "add", da, "type", "veth", "peer", "name", "cxpd" + tag + "b");
        try {
            run("ip", "link", "set", da, "up");
            run("ip", "link", "set", "cxpd" + tag + "b", "up");
            overflowTheSmallestBuffer(ifindex(da), ifindex("cxpd" + tag + "b"));
        } finally {
            run("ip", "link", "del", da);
        }
    }

    private static int ifindex(String name) throws Exception {
        return Integer.parseInt(
                java.nio.file.Files.readString(java.nio.file.Path.of("/sys/class/net/" + name + "/ifindex"))
                        .trim());
    }

    private static void overflowTheSmallestBuffer(int tapIfindex, int injectIfindex) throws Exception {
        // The smallest buffer the kernel allows (SOCK_MIN_RCVBUF) holds a few frames; the rest overflow.
        try (PacketSocket tap = PacketSocket.open(tapIfindex, ClassicBpf.udpDstPort(4791), 300, 1);
                PacketSocket inject = PacketSocket.open(injectIfindex, null, 300)) {
            assertThat(tap.statistics()).isEqualTo(new PacketSocket.Statistics(0, 0));
            int sent = 200;
            for (int m = 0; m < sent; m++) {
                inject.send(udp4(-1, 4791, 0, 17, m));
            }
            Thread.sleep(300);
            PacketSocket.Batch batch = new PacketSocket.Batch(64);
            int received = 0;
            int n;
            while ((n = tap.receive(batch)) > 0) {
                received += n;
            }
            PacketSocket.Statistics st = tap.statistics();
            assertThat(st.drops()).isPositive();
            assertThat(received).isPositive();
            assertThat(received + st.drops()).isEqualTo(sent);
            assertThat(st.packets()).isEqualTo(sent); // tp_packets counts the dropped ones too
            assertThat(tap.statistics()).isEqualTo(new PacketSocket.Statistics(0, 0)); // reading resets them
        }
    }
}
