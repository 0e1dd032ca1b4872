package io.cmdemux.ingress.wire;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.cmdemux.netdev.MalformedException;
import io.cmdemux.netdev.testkit.DecoderContract;

/**
 * Jazzer fuzz target for the rdma_cm header (CmaHeader) and what the resolver makes of it (CmAddressing):
 * the input is a service ID (its first 8 bytes, big-endian) and a request's private data (the rest). The
 * header decodes or is MalformedException; the addressing is always one of its kinds, never an exception,
 * and an IP one carries the header that decoded. The committed inputs are in CmaHeaderJazzerTestInputs/.
 */
class CmaHeaderJazzerTest {
    private static final DecoderContract.Budget BUDGET = new DecoderContract.Budget(4 << 10, 8);

    @FuzzTest
    void anyPrivateDataGivesAnAddressingAndTheHeaderDecodesOrIsMalformed(byte[] input) throws Exception {
        if (input.length < Long.BYTES) {
            return;
        }
        long serviceId = Be.u64(input, 0);
        int length = input.length - Long.BYTES;
        CmaHeader[] header = new CmaHeader[1];
        Exception e = DecoderContract.check(length, BUDGET,
                () -> header[0] = CmaHeader.decode(input, Long.BYTES, length), MalformedException.class);
        if (e != null) {
            assertThat(((MalformedException) e).offset()).isBetween(0, length);
        }
        CmAddressing[] addressing = new CmAddressing[1];
        DecoderContract.check(
                length, BUDGET, () -> addressing[0] = CmAddressing.of(serviceId, input, Long.BYTES, length));
        assertThat(addressing[0]).isNotNull();
        if (addressing[0] instanceof CmAddressing.Ip ip) {
            assertThat(ip.header()).isEqualTo(header[0]);
        }
    }
}
