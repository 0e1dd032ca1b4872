package io.cmdemux.netdev;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.Inet6Address;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/** Plain examples of decoder bugs found by the golden-bytes and fuzz tests, one per fix. */
class DecoderRegressionTest {

    // ---- Attributes.address / InetAddresses.parse: v4-mapped IPv6 addresses ----

    /** RTM_NEWADDR, AF_INET6, prefix 128, ifindex 2, IFA_ADDRESS ::ffff:10.1.2.3. */
    private static final byte[] V4_MAPPED_IPV6_ADDRESS = new NlRequest(Rtnl.RTM_NEWADDR, NlMessage.NLM_F_MULTI, 1)
            .header(ifaddrmsg(Rtnl.AF_INET6, 128, 2))
            .attr(Rtnl.IFA_ADDRESS, new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xff, (byte) 0xff, 10, 1, 2, 3})
            .toBytes();

    @Test
    void v4MappedIpv6InterfaceAddressDecodesAsIpv6NotAsIpv4() throws Exception {
        Address a = Rtnl.decodeAddress(NlMessage.of(V4_MAPPED_IPV6_ADDRESS));
        assertThat(a.address()).isInstanceOf(Inet6Address.class);
        assertThat(a.ipv4()).isFalse();
        assertThat(a.cidr()).isEqualTo("::ffff:10.1.2.3/128");
    }

    @Test
    void v4MappedIpv6LiteralParsesToTheSameAddressTheDecoderGives() throws Exception {
        Address a = Rtnl.decodeAddress(NlMessage.of(V4_MAPPED_IPV6_ADDRESS));
        assertThat(InetAddresses.parse("::ffff:10.1.2.3")).isInstanceOf(Inet6Address.class).isEqualTo(a.address());
        assertThat(InetAddresses.parse("10.1.2.3")).isNotEqualTo(a.address());
    }

    /** struct ifaddrmsg: family, prefixlen, flags, scope, then the host-endian ifa_index. */
    static byte[] ifaddrmsg(int family, int prefixLen, int ifindex) {
        return ByteBuffer.allocate(Rtnl.IFADDRMSG_SIZE).order(ByteOrder.nativeOrder())
                .put((byte) family).put((byte) prefixLen).put((byte) 0).put((byte) 0).putInt(ifindex).array();
    }
}
