package io.cmdemux.ingress.resolve;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.net.InetAddress;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/** The route prefix test against a plain big-integer reading of "the first len bits agree". */
class RouteCheckPrefixProperties {
    @Property(tries = 3000)
    void ipv4PrefixesAgreeWithBitArithmetic(
            @ForAll int net, @ForAll int ip, @ForAll @IntRange(min = 0, max = 33) int len, @ForAll boolean nearby)
            throws Exception {
        // half the pairs share a long prefix, or the interesting cases would be rare
        int other = nearby ? net ^ (1 << (ip & 31)) : ip;
        InetAddress a = InetAddress.getByAddress(bytes(net));
        InetAddress b = InetAddress.getByAddress(bytes(other));
        boolean want = len <= 32
                && (len == 0
                        || (Integer.toUnsignedLong(net) >>> (32 - len))
                                == (Integer.toUnsignedLong(other) >>> (32 - len)));
        assertThat(RouteCheck.contains(a, len, b, 32)).as("%s/%d holds %s", a, len, b).isEqualTo(want);
    }

    @Property(tries = 1000)
    void ipv6PrefixesAgreeWithBitArithmetic(@ForAll long hi, @ForAll long lo,
            @ForAll @IntRange(min = 0, max = 128) int len, @ForAll @IntRange(min = 0, max = 127) int flip)
            throws Exception {
        BigInteger x = new BigInteger(1, bytes16(hi, lo));
        BigInteger y = x.flipBit(flip);
        InetAddress a = InetAddress.getByAddress(bytes16(hi, lo));
        InetAddress b = InetAddress.getByAddress(fixed16(y));
        boolean want = x.shiftRight(128 - len).equals(y.shiftRight(128 - len));
        assertThat(RouteCheck.contains(a, len, b, 128)).as("%s/%d holds %s", a, len, b).isEqualTo(want);
    }

    private static byte[] bytes(int v) {
        return new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
    }

    private static byte[] bytes16(long hi, long lo) {
        byte[] out = new byte[16];
        for (int i = 0; i < 8; i++) {
            out[i] = (byte) (hi >>> (56 - 8 * i));
            out[8 + i] = (byte) (lo >>> (56 - 8 * i));
        }
        return out;
    }

    private static byte[] fixed16(BigInteger v) {
        byte[] raw = v.toByteArray();
        byte[] out = new byte[16];
        int n = Math.min(16, raw.length);
        System.arraycopy(raw, raw.length - n, out, 16 - n, n);
        return out;
    }
}
