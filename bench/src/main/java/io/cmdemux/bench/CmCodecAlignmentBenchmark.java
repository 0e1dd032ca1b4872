package io.cmdemux.bench;

import io.cmdemux.gid.Gid;
import io.cmdemux.ingress.wire.CmAttribute;
import io.cmdemux.ingress.wire.RoceFrameView;
import io.cmdemux.netdev.MalformedException;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * {@link CmCodecBenchmark}'s decode and bare pass with the frame at each 8-byte position of a 64-byte
 * cache line: the CRC32 intrinsic's cost moves with the address of the bytes, and where the JVM puts an
 * array (and moves it, at a collection) is not up to us, so both are measured at every position a
 * byte[]'s data can take.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class CmCodecAlignmentBenchmark {
    @Param({"0", "8", "16", "24", "32", "40", "48", "56"})
    int at;

    private final RoceFrameView view = new RoceFrameView();
    private byte[] line;
    private int end;

    @Setup(Level.Trial)
    public void setup() throws Exception {
        CmCodecBenchmark codec = new CmCodecBenchmark();
        codec.setup();
        byte[] frame = codec.reqFrame();
        line = new byte[64 + frame.length + 64];
        System.arraycopy(frame, 0, line, at, frame.length);
        end = at + frame.length;
        System.gc(); // settles the array in the old generation before measuring, where it stays put
    }

    @Benchmark
    public long crc32Baseline() {
        CRC32 crc = new CRC32();
        crc.update(line, at, end - at);
        return crc.getValue();
    }

    /** The bytes the ICRC's CRC pass covers: from the IP header to the ICRC. */
    @Benchmark
    public long crc32IcrcRange() {
        CRC32 crc = new CRC32();
        crc.update(line, at + 14, end - at - 18);
        return crc.getValue();
    }

    // The same reads as CmCodecBenchmark's, written out here: a shared method would be compiled on its own,
    // past the inlining limit, and would read both benchmarks' frames at a variable start.
    @Benchmark
    public long decodeReqWithIcrc() throws MalformedException {
        RoceFrameView v = view.wrapEthernet(line, at, end);
        if (!v.icrcValid() || v.attribute() != CmAttribute.REQ) {
            return -1;
        }
        Gid remote = v.primaryRemoteGid();
        return v.requestId() + v.serviceId() + v.requestPkey() + v.bthPkey() + remote.hi() + remote.lo()
                + v.primaryLocalGid().lo() + v.cmaIpVersion() + v.cmaSrcPort() + v.cmaSrcAddr().lo()
                + v.cmaDstAddr().lo();
    }
}
