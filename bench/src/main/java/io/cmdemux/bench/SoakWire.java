package io.cmdemux.bench;

import io.cmdemux.ingress.wire.CmRej;
import io.cmdemux.ingress.wire.FrameResult;
import io.cmdemux.ingress.wire.RoceDecoder;
import io.cmdemux.netdev.ClassicBpf;
import io.cmdemux.netdev.PacketSocket;
import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.FileOutputStream;
import java.util.Map;
import java.util.TreeMap;

/**
 * scripts/soak's view from the requester's side: {@code soak-wire IFINDEX SECONDS LOG} in the client namespace
 * reads every RoCEv2 frame that comes back and logs each REJ: the comm ID it answers (its remote comm ID), its
 * reason and who sent it (a soak consumer's marker from the private data, or 0: the daemon itself). The REQs
 * that no REJ answers are what the daemon must have counted as drops.
 */
final class SoakWire {
    private static final long IDLE_NANOS = 5_000_000_000L;

    private SoakWire() {}

    static void run(int ifindex, int seconds, String log) throws Exception {
        Map<String, Long> others = new TreeMap<>();
        long rejs = 0;
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        try (PacketSocket s = PacketSocket.open(ifindex, ClassicBpf.udpDstPort(RoceDecoder.ROCEV2_UDP_PORT), 100,
                        64 << 20);
                DataOutputStream out = new DataOutputStream(new BufferedOutputStream(new FileOutputStream(log),
                        1 << 16))) {
            PacketSocket.Batch batch = new PacketSocket.Batch(64);
            System.out.println("receiving");
            // Past the end, on while the consumers' answers still come: until 5 s without a REJ.
            long drainEnd = end + SoakConsumer.DRAIN_NANOS;
            long lastRej = System.nanoTime();
            while (true) {
                long now = System.nanoTime();
                if (now >= drainEnd || now >= end && now - lastRej > IDLE_NANOS) {
                    break;
                }
                int n = s.receive(batch);
                for (int i = 0; i < n; i++) {
                    FrameResult r = RoceDecoder.decodeEthernet(batch.frame(i));
                    if (!(r instanceof FrameResult.Decoded d)) {
                        others.merge("undecodable", 1L, Long::sum);
                        continue;
                    }
                    if (d.frame().mad().message() instanceof CmRej rej) {
                        byte[] pd = rej.privateData().toByteArray();
                        out.writeInt(rej.remoteCommId());
                        out.writeShort(rej.reason());
                        out.writeByte(SoakConsumer.isSoak(pd) ? SoakConsumer.marker(pd) : 0);
                        rejs++;
                        lastRej = System.nanoTime();
                    } else {
                        others.merge(d.frame().mad().message().attribute().name(), 1L, Long::sum);
                    }
                }
            }
        }
        System.out.printf("rejs=%d others=%s%n", rejs, others);
    }
}
