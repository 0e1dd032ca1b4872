package io.cmdemux.netdev;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.Inet6Address;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
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

    // ---- error offsets: relative to the datagram, pointing at the bad bytes ----

    @Test
    void linkErrorInSecondMessageOfDatagramPointsIntoThatMessage() {
        byte[] done = new NlRequest(NlMessage.NLMSG_DONE, NlMessage.NLM_F_MULTI, 1)
                .header(new byte[4])
                .toBytes(); // 20 bytes
        byte[] link = new NlRequest(Rtnl.RTM_NEWLINK, NlMessage.NLM_F_MULTI, 1).header(new byte[Rtnl.IFINFOMSG_SIZE])
                .string(Rtnl.IFLA_IFNAME, "x").toBytes();
        // IFLA_IFNAME's rta_len (at 16 + 16 in the link message) claims 200 bytes.
        ByteBuffer.wrap(link).order(ByteOrder.nativeOrder()).putShort(32, (short) 200);
        byte[] datagram = new byte[done.length + link.length];
        System.arraycopy(done, 0, datagram, 0, done.length);
        System.arraycopy(link, 0, datagram, done.length, link.length);
        List<NlMessage> ms = splitOrFail(datagram);
        assertThat(ms.get(1).offset()).isEqualTo(20);
        assertThatThrownBy(() -> Rtnl.decodeLink(ms.get(1))).isInstanceOf(MalformedException.class)
                .extracting(e -> ((MalformedException) e).offset()).isEqualTo(20 + 32);
    }

    /** RTM_NEWROUTE: rtmsg at 16, RTA_MULTIPATH header at 28, payload at 32, nexthops of 16 bytes. */
    private static byte[] multipathRoute(int secondHopLen, int firstGatewayLen) {
        ByteBuffer hops = ByteBuffer.allocate(32).order(ByteOrder.nativeOrder());
        hops.putShort((short) (8 + 4 + firstGatewayLen))
                .put((byte) 0)
                .put((byte) 0)
                .putInt(2)
                .putShort((short) (4 + firstGatewayLen))
                .putShort((short) Rtnl.RTA_GATEWAY)
                .put(new byte[] {10, 0, 0, 1});
        hops.position(16);
        hops.putShort((short) secondHopLen).put((byte) 0).put((byte) 0).putInt(3)
                .putShort((short) 8).putShort((short) Rtnl.RTA_GATEWAY).put(new byte[] {10, 0, 0, 2});
        byte[] rtmsg = {(byte) Rtnl.AF_INET, 0, 0, 0, (byte) 254, 3, 0, 1, 0, 0, 0, 0};
        return new NlRequest(Rtnl.RTM_NEWROUTE, 0, 1).header(rtmsg).attr(Rtnl.RTA_MULTIPATH, hops.array()).toBytes();
    }

    @Test
    void validMultipathRouteDecodesBothNexthops() throws Exception {
        Route r = Rtnl.decodeRoute(NlMessage.of(multipathRoute(16, 4)));
        assertThat(r.nexthops()).extracting(Route.Nexthop::ifindex).containsExactly(2, 3);
    }

    @Test
    void badRtnexthopLengthIsReportedAtThatNexthopsOffsetInTheMessage() {
        assertThatThrownBy(() -> Rtnl.decodeRoute(NlMessage.of(multipathRoute(4, 4))))
                .isInstanceOf(MalformedException.class)
                .extracting(e -> ((MalformedException) e).offset()).isEqualTo(32 + 16);
    }

    @Test
    void shortGatewayInsideANexthopIsReportedAtItsOwnHeaderNotRelativeToTheMultipathPayload() {
        // A 3-byte RTA_GATEWAY in the first nexthop: its header sits at 32 + 8.
        assertThatThrownBy(() -> Rtnl.decodeRoute(NlMessage.of(multipathRoute(16, 3))))
                .isInstanceOf(MalformedException.class)
                .extracting(e -> ((MalformedException) e).offset()).isEqualTo(32 + 8);
    }

    @Test
    void nsidMessageTooShortForAnyAttributeIsMalformedInsideItsOwnBytes() throws Exception {
        byte[] b = new byte[17]; // nlmsghdr + a bare 1-byte rtgenmsg, as nlmsg_put(sizeof(struct rtgenmsg)) sizes it
        ByteBuffer.wrap(b).order(ByteOrder.nativeOrder()).putInt(0, 17).putShort(4, (short) Rtnl.RTM_NEWNSID);
        NlMessage m = NlMessage.of(b);
        assertThatThrownBy(() -> Rtnl.decodeNsid(m)).isInstanceOf(MalformedException.class)
                .extracting(e -> ((MalformedException) e).offset()).isEqualTo(NlMessage.HEADER_SIZE);
    }

    // ---- NlMessage.split: a truncated trailing message is an error, not a shorter datagram ----

    @Test
    void datagramCutInsideTheSecondMessageHeaderIsMalformedNotOneMessage() {
        byte[] done = new NlRequest(NlMessage.NLMSG_DONE, NlMessage.NLM_F_MULTI, 1)
                .header(new byte[4])
                .toBytes(); // 20 bytes
        byte[] cut = new byte[done.length + 10];
        System.arraycopy(done, 0, cut, 0, done.length);
        System.arraycopy(done, 0, cut, done.length, 10);
        assertThatThrownBy(() -> NlMessage.split(ByteBuffer.wrap(cut))).isInstanceOf(MalformedException.class)
                .extracting(e -> ((MalformedException) e).offset()).isEqualTo(20);
    }

    @Test
    void lastMessageMayLackItsAlignmentPadding() throws Exception {
        byte[] b = new byte[17]; // nlmsg_len 17, as NLMSG_LENGTH(sizeof(struct rtgenmsg)), no padding after it
        ByteBuffer.wrap(b).order(ByteOrder.nativeOrder()).putInt(0, 17).putShort(4, (short) Rtnl.RTM_GETNSID);
        assertThat(NlMessage.split(ByteBuffer.wrap(b))).hasSize(1);
        assertThat(NlMessage.split(ByteBuffer.wrap(java.util.Arrays.copyOf(b, 19)))).hasSize(1);
    }

    // ---- PcapReader: pcapng if_tsresol other than 6 and 9 ----

    @Test
    void pcapngMillisecondPicosecondAndBinaryResolutionsConvertToNanoseconds() {
        // Worked by hand: 1,700,000,000,123 ms; 123,456,789,000,000 ps = 123.456789 s (beyond
        // what tshark 4.0 converts without overflow); 1,700,000,000 * 1024 + 512 units of 2^-10 s.
        assertThat(PcapReader.toNanos(1_700_000_000_123L, 3)).isEqualTo(1_700_000_000_123_000_000L);
        assertThat(PcapReader.toNanos(123_456_789_000_000L, 12)).isEqualTo(123_456_789_000L);
        assertThat(PcapReader.toNanos(1_700_000_000L * 1024 + 512, 0x80 | 10)).isEqualTo(1_700_000_000_500_000_000L);
        assertThat(PcapReader.toNanos(1_700_000_000_123_456L, 6)).isEqualTo(1_700_000_000_123_456_000L);
    }

    // ---- Link parent across namespaces with an equal ifindex ----

    @Test
    void parentInAnotherNamespaceWithOurOwnIfindexIsKept() throws Exception {
        byte[] ifinfo = ByteBuffer.allocate(Rtnl.IFINFOMSG_SIZE)
                .order(ByteOrder.nativeOrder())
                .putShort(2, (short) 1)
                .putInt(4, 3)
                .array();
        byte[] podSide = new NlRequest(Rtnl.RTM_NEWLINK, NlMessage.NLM_F_MULTI, 1).header(ifinfo)
                .string(Rtnl.IFLA_IFNAME, "net1")
                .u32(Rtnl.IFLA_LINK_NETNSID, 0)
                .u32(Rtnl.IFLA_LINK, 3)
                .toBytes();
        Link l = Rtnl.decodeLink(NlMessage.of(podSide));
        assertThat(l.parentIfindex()).isEqualTo(3);
        assertThat(l.parentNsid()).hasValue(0);
    }

    // ---- Attributes: the type lookup is not sized by the types the input names (Jazzer, issue 20) ----

    @Test
    void attributesOfTheHighestTypeAreFoundWithoutATableThatLarge() throws Exception {
        int highest = Attributes.NLA_TYPE_MASK;
        byte[] message = new NlRequest(Rtnl.RTM_NEWNSID, 0, 1).header(new byte[4])
                .u32(highest, 1)
                .u32(3, 7)
                .u32(highest, 2)
                .toBytes();
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        Attributes.parse(
                ByteBuffer.wrap(message), NlMessage.HEADER_SIZE + 4, message.length); // class loading out of the way
        long before = threads.getCurrentThreadAllocatedBytes();
        Attributes a = Attributes.parse(ByteBuffer.wrap(message), NlMessage.HEADER_SIZE + 4, message.length);
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;

        // A table indexed by type up to 16383 took 64 KiB for these 24 bytes of attributes.
        assertThat(allocated).isLessThan(4 * Attributes.TABLE_TYPES + 1024);
        assertThat(a.u32(highest)).as("the last occurrence, as nla_parse keeps").isEqualTo(2);
        assertThat(a.u32(3)).isEqualTo(7);
        assertThat(a.has(highest - 1)).isFalse();
        assertThat(a.has(Attributes.TABLE_TYPES)).isFalse();
    }

    private static List<NlMessage> splitOrFail(byte[] datagram) {
        try {
            return NlMessage.split(ByteBuffer.wrap(datagram));
        } catch (MalformedException e) {
            throw new AssertionError(e);
        }
    }

    /** struct ifaddrmsg: family, prefixlen, flags, scope, then the host-endian ifa_index. */
    static byte[] ifaddrmsg(int family, int prefixLen, int ifindex) {
        return ByteBuffer.allocate(Rtnl.IFADDRMSG_SIZE).order(ByteOrder.nativeOrder())
                .put((byte) family).put((byte) prefixLen).put((byte) 0).put((byte) 0).putInt(ifindex).array();
    }
}
