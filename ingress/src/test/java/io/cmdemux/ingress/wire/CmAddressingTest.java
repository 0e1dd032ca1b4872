package io.cmdemux.ingress.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/** Service ID split and the rdma_cm header (ARCHITECTURE.md §4.3; rdma_get_service_id and struct cma_hdr in cma.c). */
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
    }

    @Test
    void ipv4HeaderPutsTheAddressInTheLastFourBytes() throws Exception {
        CmaHeader h = CmaHeader.of(InetAddress.getByName("10.0.0.2"), 48879, InetAddress.getByName("10.0.0.5"));
        byte[] pd = h.toPrivateData(new byte[] {(byte) 0xAA}).toByteArray();
        // Byte 0 version 0, byte 1 IP version in bits 7:4, bytes 2-3 port, 4-19 source, 20-35 destination.
        assertThat(java.util.HexFormat.of().formatHex(pd, 0, 37))
                .isEqualTo("00" + "40" + "beef" + "000000000000000000000000" + "0a000002" + "000000000000000000000000"
                        + "0a000005" + "aa");
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
    void theHeaderIsReadInEveryPortSpaceAsCmaGetNetDevDoes() throws Exception {
        byte[] pd = CmaHeader.of(InetAddress.getByName("192.0.2.2"), 40000, InetAddress.getByName("192.0.2.11"))
                .toPrivateData(new byte[0])
                .toByteArray();
        for (PortSpace ps : PortSpace.values()) {
            CmAddressing a = CmAddressing.of(ServiceId.of(ps, 7471).value(), Octets.of(pd));
            assertThat(a).as("%s", ps).isInstanceOf(CmAddressing.Ip.class);
            assertThat(((CmAddressing.Ip) a).dst()).isEqualTo(InetAddress.getByName("192.0.2.11"));
            assertThat(((CmAddressing.Ip) a).portSpace()).isEqualTo(ps);
        }
        // A service ID outside rdma_cm's spaces: no rdma_cm listener can have it, but the header reads the same.
        CmAddressing vendor = CmAddressing.of(0x0002C90300001234L, Octets.of(pd));
        assertThat(vendor).isInstanceOf(CmAddressing.Ip.class);
        assertThat(((CmAddressing.Ip) vendor).portSpace()).isNull();
    }

    @Test
    void onlyTheVersionByteAndTheIpVersionNibbleChangeTheCourse() {
        byte[] pd = new byte[CmReq.PRIVATE_DATA_SIZE];
        long sid = ServiceId.of(PortSpace.IB, 9).value();
        // AF_IB user data of zeros: IP version 0, -EAFNOSUPPORT, native IB.
        assertThat(CmAddressing.of(sid, Octets.of(pd)))
                .isEqualTo(new CmAddressing.NativeIb(new ServiceId(sid), "IP version 0 in the rdma_cm header"));
        pd[0] = 0x42;
        assertThat(CmAddressing.of(sid, Octets.of(pd)))
                .isEqualTo(new CmAddressing.BadCmaVersion(new ServiceId(sid), 0x42));
        pd[0] = 0;
        pd[1] = 0x45; // the low nibble is not looked at
        assertThat(CmAddressing.of(sid, Octets.of(pd))).isInstanceOf(CmAddressing.Ip.class);
    }

    @Test
    void theHeaderKeepsEveryBitAndReadsAnAddressBothWays() throws Exception {
        byte[] pd = new byte[CmReq.PRIVATE_DATA_SIZE];
        pd[0] = 0x12;
        pd[1] = 0x4f; // IP version 4, and a low nibble that struct cma_hdr leaves unnamed
        pd[2] = (byte) 0xbe;
        pd[3] = (byte) 0xef;
        System.arraycopy(InetAddress.getByName("fd00::a00:2").getAddress(), 0, pd, 4, 16);
        System.arraycopy(InetAddress.getByName("::ffff:10.0.0.5").getAddress(), 0, pd, 32, 4);
        pd[30] = (byte) 0xff;
        pd[31] = (byte) 0xff;
        CmaHeader h = CmaHeader.decode(Octets.of(pd));
        assertThat(h.cmaVersion()).isEqualTo(0x12);
        assertThat(h.ipVersion()).isEqualTo(4);
        assertThat(h.reserved()).isEqualTo(0xf);
        assertThat(h.srcPort()).isEqualTo(0xbeef);
        // cma_save_ip4_info takes the last 4 bytes, whatever the 12 before; cma_save_ip6_info all 16.
        assertThat(CmaHeader.asIpv4(h.srcAddr())).isEqualTo(InetAddress.getByName("10.0.0.2"));
        assertThat(CmaHeader.asIpv6(h.srcAddr())).isEqualTo(InetAddress.getByName("fd00::a00:2"));
        assertThat(CmaHeader.asIpv4(h.dstAddr())).isEqualTo(InetAddress.getByName("10.0.0.5"));
        // 16 bytes that look IPv4-mapped stay an IPv6 address, as an in6_addr does.
        assertThat(CmaHeader.asIpv6(h.dstAddr())).isInstanceOf(java.net.Inet6Address.class);
        assertThat(CmaHeader.asIpv6(h.dstAddr()).getAddress()).isEqualTo(java.util.Arrays.copyOfRange(pd, 20, 36));
        assertThat(java.util.Arrays.copyOf(h.toPrivateData(new byte[0]).toByteArray(), CmaHeader.SIZE))
                .isEqualTo(java.util.Arrays.copyOf(pd, CmaHeader.SIZE));
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
