package io.cmdemux.ingress.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/** Service ID split and the rdma_cm header (DESIGN.md §5.1; rdma_get_service_id and struct cma_hdr in cma.c). */
class CmAddressingTest {

    @Test
    void serviceIdSplitsIntoPortSpaceAndPort() {
        // The example: TCP port 18515 (0x4853), as rdma_get_service_id builds it: (0x0106 << 16) + port.
        ServiceId sid = new ServiceId(0x0000000001064853L);
        assertThat(sid.portSpace()).isEqualTo(PortSpace.TCP);
        assertThat(sid.port()).isEqualTo(18515);
        assertThat(new ServiceId(0x0000000001110000L | 4791).portSpace()).isEqualTo(PortSpace.UDP);
        assertThat(new ServiceId(0x0000000000020000L | 7).portSpace()).isEqualTo(PortSpace.IPOIB);
        assertThat(new ServiceId(0x00000000013F0000L | 9).portSpace()).isEqualTo(PortSpace.IB);
        assertThat(ServiceId.of(PortSpace.UDP, 4791).value()).isEqualTo(0x00000000011112B7L);
        assertThat(new ServiceId(0x0000000000020007L).isRdmaIpService()).isTrue();
        assertThat(new ServiceId(0x00000000013F0009L).isRdmaIpService()).isFalse();
    }

    @Test
    void ipv4HeaderPutsTheAddressInTheLastFourBytes() throws Exception {
        CmaHeader h = CmaHeader.of(InetAddress.getByName("10.0.0.2"), 48879, InetAddress.getByName("10.0.0.5"));
        byte[] pd = h.toPrivateData(new byte[] {(byte) 0xAA}).toByteArray();
        // Byte 0 version 0, byte 1 IP version in bits 7:4, bytes 2-3 port, 4-19 source, 20-35 destination.
        assertThat(java.util.HexFormat.of().formatHex(pd, 0, 37)).isEqualTo(
                "00" + "40" + "beef" + "000000000000000000000000" + "0a000002" + "000000000000000000000000" + "0a000005" + "aa");
        CmAddressing a = CmAddressing.of(ServiceId.of(PortSpace.TCP, 18515).value(), Octets.of(pd));
        assertThat(a).isInstanceOf(CmAddressing.Ip.class);
        CmAddressing.Ip ip = (CmAddressing.Ip) a;
        assertThat(ip.src()).isEqualTo(InetAddress.getByName("10.0.0.2"));
        assertThat(ip.dst()).isEqualTo(InetAddress.getByName("10.0.0.5"));
        assertThat(ip.srcPort()).isEqualTo(48879);
        assertThat(ip.port()).isEqualTo(18515);
        assertThat(ip.portSpace()).isEqualTo(PortSpace.TCP);
    }

    @Test
    void ipv6HeaderCarriesFullAddresses() throws Exception {
        CmaHeader h = CmaHeader.of(InetAddress.getByName("fd00::2"), 1, InetAddress.getByName("fe80::5"));
        byte[] pd = h.toPrivateData(new byte[0]).toByteArray();
        assertThat(pd[1]).isEqualTo((byte) 0x60);
        CmAddressing.Ip ip = (CmAddressing.Ip) CmAddressing.of(ServiceId.of(PortSpace.UDP, 5).value(), Octets.of(pd));
        assertThat(ip.dst()).isEqualTo(InetAddress.getByName("fe80::5"));
        assertThat(ip.header().ipVersion()).isEqualTo(6);
    }
}
