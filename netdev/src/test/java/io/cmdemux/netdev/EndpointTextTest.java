package io.cmdemux.netdev;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/** IP:PORT as the CLI and the control API take it: brackets for IPv6, no DNS, and an error that names the option. */
class EndpointTextTest {
    @Test
    void ipv4AndBracketedIpv6() throws Exception {
        assertThat(InetAddresses.parseEndpoint("--dst", "192.0.2.11:7471"))
                .isEqualTo(new InetSocketAddress(InetAddress.getByAddress(new byte[] {(byte) 192, 0, 2, 11}), 7471));
        InetSocketAddress v6 = InetAddresses.parseEndpoint("--dst", " [fe80::a:11]:0 ");
        assertThat(v6.getPort()).isZero();
        assertThat(InetAddresses.toText(v6.getAddress())).isEqualTo("fe80::a:11");
        assertThat(v6.isUnresolved()).isFalse();
    }

    @Test
    void badTextNamesTheOptionAndWhatWasExpected() {
        assertThatThrownBy(() -> InetAddresses.parseEndpoint("--dst", "fe80::1:7471"))
                .hasMessage("--dst fe80::1:7471: expected IP:PORT (IPv6 in brackets)");
        assertThatThrownBy(() -> InetAddresses.parseEndpoint("--dst", "[fe80::1]7471"))
                .hasMessage("--dst [fe80::1]7471: expected [IPv6]:PORT");
        assertThatThrownBy(() -> InetAddresses.parseEndpoint("dst", "10.0.0.1:x"))
                .hasMessage("dst 10.0.0.1:x: port 'x' is not a number");
        assertThatThrownBy(() -> InetAddresses.parseEndpoint("dst", "10.0.0.1:65536"))
                .hasMessage("dst 10.0.0.1:65536: port out of range");
        assertThatThrownBy(() -> InetAddresses.parseEndpoint("dst", "example.com:80"))
                .hasMessageContaining("not an IP address");
        assertThatThrownBy(() -> InetAddresses.parseEndpoint("dst", "10.0.0.1"))
                .hasMessageContaining("expected IP:PORT");
    }
}
