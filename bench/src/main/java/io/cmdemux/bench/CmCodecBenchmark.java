package io.cmdemux.bench;

import io.cmdemux.gid.Gid;
import io.cmdemux.ingress.wire.CmAddressing;
import io.cmdemux.ingress.wire.CmAttribute;
import io.cmdemux.ingress.wire.CmPath;
import io.cmdemux.ingress.wire.CmRej;
import io.cmdemux.ingress.wire.CmReq;
import io.cmdemux.ingress.wire.CmaHeader;
import io.cmdemux.ingress.wire.FrameResult;
import io.cmdemux.ingress.wire.L2Header;
import io.cmdemux.ingress.wire.L3Header;
import io.cmdemux.ingress.wire.Mad;
import io.cmdemux.ingress.wire.Octets;
import io.cmdemux.ingress.wire.PortSpace;
import io.cmdemux.ingress.wire.RejReason;
import io.cmdemux.ingress.wire.RoceDecoder;
import io.cmdemux.ingress.wire.RoceFrameBuilder;
import io.cmdemux.ingress.wire.RoceFrameView;
import io.cmdemux.ingress.wire.ServiceId;
import io.cmdemux.netdev.HwAddr;
import io.cmdemux.netdev.MalformedException;
import java.net.InetAddress;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Issue 3's goal: decoding a REQ from a whole RoCEv2 frame, ICRC check included, costs at most twice a
 * bare CRC32 pass over the same bytes. Also: building a REJ frame, what the daemon does per reject.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class CmCodecBenchmark {
    private final RoceFrameView view = new RoceFrameView();
    private byte[] reqFrame;
    /** The same REQ between IPv6 addresses: 342 bytes, checked field by field (no word-at-a-time shortcut). */
    private byte[] reqFrameV6;
    private L2Header l2;
    private L3Header l3;
    private Mad rej;

    @Setup
    public void setup() throws Exception {
        l2 = new L2Header(HwAddr.parse("02:00:00:00:00:0b"), HwAddr.parse("02:00:00:00:00:0a"), null);
        l3 = L3Header.of(Gid.ofIp(InetAddress.getByName("10.0.0.2")), Gid.ofIp(InetAddress.getByName("10.0.0.5")));
        reqFrame = reqFrame("10.0.0.2", "10.0.0.5");
        reqFrameV6 = reqFrame("fd00::2", "fd00::5");
        rej = Mad.of(CmRej.ofReq(0, 0x11223344, RejReason.CONSUMER_DEFINED, Octets.zeros(0), Octets.zeros(0)), 0x1234);
        // Settles the frames in the old generation: the allocating benchmarks' young collections would
        // otherwise move them, and the CRC32 intrinsic's cost depends on where the bytes are.
        System.gc();
    }

    /** The IPv4 REQ frame, for {@link CmCodecAlignmentBenchmark}. */
    byte[] reqFrame() {
        return reqFrame;
    }

    private byte[] reqFrame(String source, String destination) throws Exception {
        InetAddress src = InetAddress.getByName(source);
        InetAddress dst = InetAddress.getByName(destination);
        CmPath primary = new CmPath(0xffff, 0xffff, Gid.ofIp(src), Gid.ofIp(dst), 0x12345, 0x2, 0, 64, 0, false, 0x12);
        CmReq req = new CmReq(0x11223344, 0, ServiceId.of(PortSpace.TCP, 18515).value(), 0x0002c90300a1b2c3L, 0, 0x11,
                4, 0, 4, 0, 20, 0, true, 0x123456, 20, 7, 0xffff, 3, false, 7, 15, false, 0, primary,
                CmPath.NONE, false, CmaHeader.of(src, 48879, dst).toPrivateData(new byte[0]));
        byte[] f = RoceFrameBuilder.cmFrame(l2, L3Header.of(Gid.ofIp(src), Gid.ofIp(dst)), 0xC000, 0xffff, 1,
                Mad.of(req, 0x1234));
        if (!(RoceDecoder.decodeEthernet(f) instanceof FrameResult.Decoded d) || !d.frame().icrcValid()) {
            throw new IllegalStateException("the benchmark frame does not decode");
        }
        return f;
    }

    /** The limit: CRC-32 over every byte of the frame, nothing else. */
    @Benchmark
    public long crc32Baseline() {
        return crc32(reqFrame);
    }

    private static long crc32(byte[] frame) {
        CRC32 crc = new CRC32();
        crc.update(frame, 0, frame.length);
        return crc.getValue();
    }

    /** Every header checked and the ICRC verified, the attribute known, no field read: what a dropped frame costs. */
    @Benchmark
    public boolean checkWithIcrc() throws MalformedException {
        RoceFrameView v = view.wrapEthernet(reqFrame, 0, reqFrame.length);
        return v.icrcValid() && v.attribute() == CmAttribute.REQ;
    }

    /**
     * The receive path: every header checked, the ICRC verified, and the REQ's routing fields read in
     * place (comm ID, service ID, P_Keys, primary path GIDs, the rdma_cm header's addresses and port).
     */
    @Benchmark
    public long decodeReqWithIcrc() throws MalformedException {
        return routingFields(reqFrame);
    }

    @Benchmark
    public long crc32BaselineV6() {
        return crc32(reqFrameV6);
    }

    @Benchmark
    public long decodeReqV6WithIcrc() throws MalformedException {
        return routingFields(reqFrameV6);
    }

    private long routingFields(byte[] frame) throws MalformedException {
        RoceFrameView v = view.wrapEthernet(frame, 0, frame.length);
        if (!v.icrcValid() || v.attribute() != CmAttribute.REQ) {
            return -1;
        }
        // Folded into one value: a Blackhole call per field would cost more than reading the fields.
        Gid remote = v.primaryRemoteGid();
        return v.requestId() + v.serviceId() + v.requestPkey() + v.bthPkey() + remote.hi() + remote.lo()
                + v.primaryLocalGid().lo() + v.cmaIpVersion() + v.cmaSrcPort() + v.cmaSrcAddr().lo()
                + v.cmaDstAddr().lo();
    }

    /** As above, with the rdma_cm header interpreted as the resolver takes it: java.net addresses and a ServiceId. */
    @Benchmark
    public CmAddressing decodeReqToAddressing() throws MalformedException {
        RoceFrameView v = view.wrapEthernet(reqFrame, 0, reqFrame.length);
        return v.icrcValid() ? v.addressing() : null;
    }

    /** The same frame decoded into the whole record tree, as `decode` and the status pages show it. */
    @Benchmark
    public FrameResult decodeReqRecords() {
        return RoceDecoder.decodeEthernet(reqFrame);
    }

    @Benchmark
    public byte[] encodeRejFrame() {
        return RoceFrameBuilder.cmFrame(l2, l3, 0xC000, 0xffff, 2, rej);
    }
}
