package io.cmdemux.control.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.gid.Gid;
import io.cmdemux.ingress.resolve.Decision;
import io.cmdemux.ingress.resolve.IngressKey;
import io.cmdemux.ingress.resolve.NetworkType;
import io.cmdemux.ingress.resolve.PacketMeta;
import io.cmdemux.ingress.resolve.QpType;
import io.cmdemux.ingress.wire.PortSpace;
import io.cmdemux.ingress.resolve.ResolverMode;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.netdev.HwAddr;
import io.cmdemux.netdev.InetAddresses;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * docs/PROTOCOL.md's example exchange is the encoder's output byte for byte: every hex dump in
 * the document is produced here and must appear there unchanged.
 */
class ProtocolDocTest {
    static final NetnsId POD_A = new NetnsId(4, 4026532301L);

    static Map<String, Frame> exampleExchange() {
        Map<String, Frame> ex = new LinkedHashMap<>();
        ex.put("1 HELLO", Frame.of(Wire.HELLO, 1, List.of(Record.text(Wire.R_CLIENT_NAME, "cmdemux listen"))));
        Frame hello = ex.get("1 HELLO");
        ex.put("2 HELLO reply", Frame.reply(hello, Wire.OK, List.of(
                Messages.consumer(new ConsumerInfo(7, POD_A, Via.ABSTRACT_SOCKET, 4242, "pod-a", "")),
                        Record.text(Wire.R_NETNS_NAME, "pod-a"))));
        ListenSpec spec = ListenSpec.of(PortSpace.TCP, InetAddresses.parse("10.0.0.2"), 7471);
        Frame listen = Frame.of(Wire.LISTEN, 2, List.of(Messages.listenSpec(spec)));
        ex.put("3 LISTEN", listen);
        ex.put("4 LISTEN reply", Frame.reply(listen, Wire.OK,
                List.of(Messages.listener(new ListenerInfo(12, POD_A.inode(), spec.withAfonly(true))))));
        Frame stolen = Frame.of(Wire.LISTEN, 3,
                List.of(Messages.listenSpec(ListenSpec.of(PortSpace.TCP, InetAddresses.parse("10.0.0.3"), 7471))));
        ex.put("5 LISTEN", stolen);
        ex.put("6 LISTEN reply", Frame.reply(stolen, Wire.EADDRNOTAVAIL,
                List.of(Record.text(Wire.R_TEXT, "10.0.0.3 is not assigned here"))));
        PacketMeta meta = new PacketMeta(new IngressKey("soft0", 1, 0x020000fffe000001L, 0xffff), NetworkType.ROCE_V2,
                Gid.parse("10.0.0.2"), Gid.parse("10.0.0.2"), Gid.parse("10.0.0.1"), 0xffff, 0xffff,
                PortSpace.TCP.serviceId(7471), 0, 4, InetAddresses.parse("10.0.0.2"), InetAddresses.parse("10.0.0.1"),
                40000, OptionalInt.empty(), HwAddr.parse("02:00:00:00:00:02"), false, 0x11223344L, QpType.RC,
                Gid.parse("10.0.0.1"));
        DecisionSummary d = new DecisionSummary(Decision.Outcome.DELIVER, ResolverMode.KERNEL, null, 3,
                POD_A.inode(), 42);
        ex.put("7 REQ", Messages.requestFrame(1, 0x5eed, 12, MetaCodec.encode(meta),
                new byte[] {(byte) 0xde, (byte) 0xad, (byte) 0xbe, (byte) 0xef},
                d, "pod-a"));
        Frame reject = Messages.rejectFrame(4, new Rejection(0x5eed, 28, null, null));
        ex.put("8 REJECT", reject);
        ex.put("9 REJECT reply", Frame.reply(reject, Wire.OK, List.of()));
        ex.put("10 ERROR", new Frame(Wire.VERSION, Wire.ERROR, Wire.EMSGSIZE, Wire.FORMAT_RECORDS, 0, 0,
                List.of(Record.text(Wire.R_TEXT, "frame length 1048576 exceeds the limit of 65536"))));
        Map<String, String> env = new LinkedHashMap<>();
        env.put("CNI_COMMAND", "DEL");
        env.put("CNI_CONTAINERID", "c1");
        env.put("CNI_IFNAME", "net1");
        Frame cni = CniMessages.cniRequest(1, env,
                "{\"cniVersion\":\"1.0.0\",\"name\":\"rdma-net\",\"type\":\"cmdemux-cni\"}"
                .getBytes(StandardCharsets.UTF_8));
        ex.put("11 CNI", cni);
        ex.put("12 CNI reply", Frame.reply(cni, Wire.OK, CniMessages.cniReply(new ProgramReply(0, new byte[0], ""))));
        Frame unregister = Frame.of(Wire.POD_UNREGISTER, 2, List.of(Record.mandatory(Wire.R_JSON,
                "{\"network\":\"rdma-net\",\"containerId\":\"c1\",\"ifname\":\"net1\"}"
                        .getBytes(StandardCharsets.UTF_8))));
        ex.put("13 POD_UNREGISTER", unregister);
        ex.put("14 POD_UNREGISTER reply", Frame.reply(unregister, Wire.OK, List.of(Record.mandatory(Wire.R_JSON,
                "{\"network\":\"rdma-net\",\"containerId\":\"c1\",\"ifname\":\"net1\",\"removed\":true}"
                        .getBytes(StandardCharsets.UTF_8)))));
        Frame cli = CliMessages.cliRequest(1, List.of("gid-index", "--netns", "pod1", "--ip", "10.0.0.2"));
        ex.put("15 CLI", cli);
        ex.put("16 CLI reply", Frame.reply(cli, Wire.OK,
                CliMessages.cliReply(new ProgramReply(0, "3\n".getBytes(StandardCharsets.UTF_8), ""))));
        return ex;
    }

    static String hexdump(byte[] b) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < b.length; i += 16) {
            sb.append(String.format("%04x ", i));
            for (int j = i; j < Math.min(i + 16, b.length); j++) {
                sb.append(j == i + 8 ? "  " : " ").append(String.format("%02x", b[j] & 0xff));
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    @Test
    void everyExampleInProtocolMdIsWhatTheEncoderWrites() throws IOException {
        Path doc = Path.of("..", "docs", "PROTOCOL.md");
        String text = Files.readString(doc);
        for (Map.Entry<String, Frame> e : exampleExchange().entrySet()) {
            String dump = hexdump(FrameCodec.encode(e.getValue()));
            assertThat(text).as("the hex of example %s in %s", e.getKey(), doc).contains(dump);
        }
    }

    public static void main(String[] args) {
        for (Map.Entry<String, Frame> e : exampleExchange().entrySet()) {
            System.out.println("### " + e.getKey() + " " + e.getValue());
            System.out.print(hexdump(FrameCodec.encode(e.getValue())));
        }
    }
}
