package io.cmdemux.netdev;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.OptionalInt;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/**
 * Fuzzing of the netlink codec: NlMessage.split/of, Attributes.parse and every accessor, and all
 * Rtnl decoders. Inputs start from valid messages (golden_links.c, built with gcc, and messages
 * built with NlRequest) and are truncated at every offset, get their nlmsg_len / rta_len
 * corrupted, nested far past any real depth, or replaced by random bytes.
 *
 * <p>The property, for every input: each call returns a value or throws {@link
 * MalformedException} whose offset lies inside the bytes it was given; nothing else escapes
 * (no IndexOutOfBounds, BufferUnderflow, NegativeArraySize, IllegalArgument...). The decoders have
 * no loops without a bound, so termination is checked simply by every call returning.
 */
class NetlinkCodecFuzzTest {
    private static final int NLA_HDRLEN = 4;
    /** Family header sizes the walker tries: none, rtgenmsg (padded), ifaddrmsg, rtmsg, ifinfomsg. */
    private static final int[] FAMILY_HEADERS = {0, 4, 8, 12, 16};
    /** Attribute sets the walker opens per message; nests deeper than this are only parsed by the decoders. */
    private static final int MAX_SETS_WALKED = 64;

    // ------------------------------------------------------------------ seeds

    private static List<byte[]> seeds;

    static synchronized List<byte[]> seeds() {
        if (seeds == null) {
            List<byte[]> s = new ArrayList<>();
            for (GoldenMessages.Golden g : GoldenMessages.all()) {
                s.add(g.bytes());
            }
            s.add(Rtnl.getLinkDump(1).toBytes());
            s.add(Rtnl.getNsidDump(2, OptionalInt.of(7)).toBytes());
            s.add(Rtnl.getRouteDump(3, Rtnl.AF_INET).toBytes());
            s.add(builtLink());
            s.add(builtMultipathRoute());
            s.add(new NlRequest(NlMessage.NLMSG_DONE, NlMessage.NLM_F_MULTI, 9).header(new byte[4]).toBytes());
            seeds = List.copyOf(s);
        }
        return seeds;
    }

    /** A NEWLINK built with our encoder: every accessor width, two nest levels, an alt name list. */
    private static byte[] builtLink() {
        byte[] ifinfo = ByteBuffer.allocate(Rtnl.IFINFOMSG_SIZE)
                .order(ByteOrder.nativeOrder())
                .putShort(2, (short) 1)
                .putInt(4, 9)
                .array();
        return new NlRequest(Rtnl.RTM_NEWLINK, 0, 1).header(ifinfo)
                .string(Rtnl.IFLA_IFNAME, "fz0")
                .u32(Rtnl.IFLA_MTU, 1500)
                .u8(Rtnl.IFLA_OPERSTATE, 6)
                .u32(Rtnl.IFLA_LINK, 3)
                .u32(Rtnl.IFLA_LINK_NETNSID, 1)
                .attr(Rtnl.IFLA_ADDRESS, new byte[] {2, 0, 0, 0, 0, 9})
                .u64(23 /* IFLA_STATS64 stand-in of 8 bytes */, -1L)
                .beginNest(Rtnl.IFLA_LINKINFO)
                .string(Rtnl.IFLA_INFO_KIND, "vlan")
                .beginNest(Rtnl.IFLA_INFO_DATA)
                .u16(Rtnl.IFLA_VLAN_ID, 7)
                .attr(Rtnl.IFLA_VLAN_PROTOCOL, new byte[] {(byte) 0x81, 0})
                .attr(Rtnl.IFLA_VLAN_FLAGS, new byte[8])
                .endNest()
                .string(Rtnl.IFLA_INFO_SLAVE_KIND, "bond")
                .beginNest(Rtnl.IFLA_INFO_SLAVE_DATA)
                .u8(Rtnl.IFLA_BOND_SLAVE_STATE, 1)
                .attr(Rtnl.IFLA_BOND_SLAVE_PERM_HWADDR, new byte[6])
                .u16(Rtnl.IFLA_BOND_SLAVE_QUEUE_ID, 4)
                .endNest()
                .endNest()
                .beginNest(Rtnl.IFLA_PROP_LIST)
                .string(Rtnl.IFLA_ALT_IFNAME, "fuzz-alt-0")
                .string(Rtnl.IFLA_ALT_IFNAME, "fuzz-alt-1")
                .endNest()
                .toBytes();
    }

    private static byte[] builtMultipathRoute() {
        byte[] rtmsg = {(byte) Rtnl.AF_INET, 24, 0, 0, (byte) 254, 4, 0, 1, 0, 0, 0, 0};
        ByteBuffer hops = ByteBuffer.allocate(2 * 16).order(ByteOrder.nativeOrder());
        for (int i = 0; i < 2; i++) {
            hops.putShort((short) 16).put((byte) 0).put((byte) i).putInt(2 + i) // rtnexthop
                    .putShort((short) 8).putShort((short) Rtnl.RTA_GATEWAY).put(new byte[] {10, 0, 0, (byte) (1 + i)});
        }
        return new NlRequest(Rtnl.RTM_NEWROUTE, 0, 1).header(rtmsg)
                .u32(Rtnl.RTA_TABLE, 254)
                .attr(Rtnl.RTA_DST, new byte[] {10, 9, 0, 0})
                .attr(Rtnl.RTA_MULTIPATH, hops.array())
                .toBytes();
    }

    // --------------------------------------------------------------- the oracle

    /** Runs every entry point over {@code input}; fails on anything but a value or an in-range MalformedException. */
    static void decodeEverything(byte[] input) {
        List<NlMessage> messages;
        try {
            messages = NlMessage.split(ByteBuffer.wrap(input));
        } catch (MalformedException e) {
            assertOffsetWithin(e, 0, input.length, "NlMessage.split");
            return;
        }
        for (NlMessage m : messages) {
            assertThat(m.offset()).isBetween(0, input.length - NlMessage.HEADER_SIZE);
            assertThat(m.length()).isBetween(NlMessage.HEADER_SIZE, input.length - m.offset());
            decodeMessage(m);
        }
        try {
            NlMessage.of(input);
        } catch (MalformedException e) {
            assertOffsetWithin(e, 0, input.length, "NlMessage.of");
        }
    }

    /** Every decoder on one message: offsets of their errors point into this message of the datagram. */
    static void decodeMessage(NlMessage m) {
        int lo = m.offset();
        int hi = m.offset() + m.length();
        try {
            Rtnl.decodeLink(m);
        } catch (MalformedException e) {
            assertOffsetWithin(e, lo, hi, "decodeLink");
        }
        try {
            Rtnl.decodeAddress(m);
        } catch (MalformedException e) {
            assertOffsetWithin(e, lo, hi, "decodeAddress");
        }
        try {
            Rtnl.decodeRoute(m);
        } catch (MalformedException e) {
            assertOffsetWithin(e, lo, hi, "decodeRoute");
        }
        try {
            Rtnl.decodeNsid(m);
        } catch (MalformedException e) {
            assertOffsetWithin(e, lo, hi, "decodeNsid");
        }
        try {
            m.error();
        } catch (MalformedException e) {
            assertOffsetWithin(e, lo, hi, "error");
        }
        m.extAckMessage();
        assertThat(m.toBytes()).hasSize(m.length());
        ByteBuffer raw = m.raw();
        for (int h : FAMILY_HEADERS) {
            if (NlMessage.HEADER_SIZE + h <= m.length()) {
                walkAttributes(raw, NlMessage.HEADER_SIZE + h, m.length());
            }
        }
    }

    /**
     * Attributes.parse over [from, to) and every accessor on every attribute, opening nests
     * breadth-first up to {@link #MAX_SETS_WALKED} sets. Offsets are relative to {@code buf}.
     */
    static void walkAttributes(ByteBuffer buf, int from, int to) {
        Deque<int[]> work = new ArrayDeque<>();
        work.add(new int[] {from, to});
        int sets = 0;
        while (!work.isEmpty() && sets++ < MAX_SETS_WALKED) {
            int[] range = work.poll();
            Attributes a;
            try {
                a = Attributes.parse(buf, range[0], range[1]);
            } catch (MalformedException e) {
                assertOffsetWithin(e, range[0], range[1], "Attributes.parse");
                continue;
            }
            for (int type : typesIn(buf, range[0], range[1])) {
                if (!a.has(type)) {
                    continue; // parse stopped before it (only on malformed input, which threw above)
                }
                int len = a.length(type);
                int at = a.offsetOf(type);
                assertThat(at).isBetween(range[0], range[1] - NLA_HDRLEN);
                assertThat(len).isBetween(0, range[1] - at - NLA_HDRLEN);
                assertThat(a.bytes(type)).hasSize(len);
                assertThat(a.payload(type).remaining()).isEqualTo(len);
                assertThat(a.string(type)).isNotNull();
                assertThat(a.allStrings(type)).isNotEmpty();
                accessor(() -> a.u8(type), at, "u8");
                accessor(() -> a.u16(type), at, "u16");
                accessor(() -> a.be16(type), at, "be16");
                accessor(() -> a.u32(type), at, "u32");
                accessor(() -> a.s32(type), at, "s32");
                accessor(() -> a.u64(type), at, "u64");
                accessor(() -> a.address(type), at, "address");
                try {
                    a.nested(type);
                    work.add(new int[] {at + NLA_HDRLEN, at + NLA_HDRLEN + len});
                } catch (MalformedException e) {
                    assertOffsetWithin(e, at + NLA_HDRLEN, at + NLA_HDRLEN + len, "nested");
                }
            }
        }
    }

    private interface Accessor {
        Object get() throws MalformedException;
    }

    /** A fixed-size accessor either returns or names the attribute's own header. */
    private static void accessor(Accessor f, int headerOffset, String what) {
        try {
            f.get();
        } catch (MalformedException e) {
            assertThat(e.offset()).as(what + ": " + e.getMessage()).isEqualTo(headerOffset);
        }
    }

    /** The attribute types present in [from, to), found the way nla_parse walks (test-side, to pick what to query). */
    private static List<Integer> typesIn(ByteBuffer buf, int from, int to) {
        List<Integer> out = new ArrayList<>();
        ByteBuffer b = buf.duplicate().order(ByteOrder.nativeOrder());
        int pos = from;
        while (to - pos >= NLA_HDRLEN) {
            int len = Short.toUnsignedInt(b.getShort(pos));
            if (len < NLA_HDRLEN || len > to - pos) {
                break;
            }
            out.add(Short.toUnsignedInt(b.getShort(pos + 2)) & Attributes.NLA_TYPE_MASK);
            pos += NlMessage.align(len);
        }
        return out;
    }

    private static void assertOffsetWithin(MalformedException e, int lo, int hiExclusive, String what) {
        assertThat(e.offset())
                .as(what + " error offset for \"" + e.getMessage() + "\"")
                .isBetween(lo, Math.max(lo, hiExclusive - 1));
    }

    // ------------------------------------------------------------- truncation

    @Test
    void everySeedDecodesWhole() throws Exception {
        for (byte[] s : seeds()) {
            decodeEverything(s);
            assertThat(NlMessage.of(s).length()).isEqualTo(s.length);
        }
    }

    @Test
    void truncatingEverySeedAtEveryOffsetGivesValueOrMalformed() {
        for (byte[] s : seeds()) {
            for (int cut = 0; cut <= s.length; cut++) {
                byte[] t = java.util.Arrays.copyOf(s, cut);
                decodeEverything(t);
                // The same cut with nlmsg_len telling the truth, so that split hands the
                // truncated attributes to the decoders.
                if (cut >= NlMessage.HEADER_SIZE) {
                    ByteBuffer.wrap(t).order(ByteOrder.nativeOrder()).putInt(0, cut);
                    decodeEverything(t);
                }
            }
        }
    }

    @Test
    void truncatingAMultiMessageDatagramAtEveryOffsetGivesValueOrMalformed() {
        List<byte[]> s = seeds();
        byte[] datagram = concat(List.of(s.get(0), s.get(s.size() / 2), s.get(s.size() - 2)));
        for (int cut = 0; cut <= datagram.length; cut++) {
            decodeEverything(java.util.Arrays.copyOf(datagram, cut));
        }
    }

    // ------------------------------------------------------- length corruption

    @Property(tries = 2000)
    void corruptingNlmsgLenGivesValueOrMalformed(@ForAll("seedIndex") int seed, @ForAll("u32Lengths") int newLen) {
        byte[] b = seeds().get(seed).clone();
        ByteBuffer.wrap(b).order(ByteOrder.nativeOrder()).putInt(0, newLen);
        decodeEverything(b);
    }

    @Property(tries = 3000)
    void corruptingAnyRtaLenGivesValueOrMalformed(
            @ForAll("seedIndex") int seed,
            @ForAll @IntRange(min = 0, max = 10_000) int which,
            @ForAll("u16Lengths") int newLen) {
        byte[] b = seeds().get(seed).clone();
        List<Integer> headers = attributeHeaders(b);
        if (headers.isEmpty()) {
            decodeEverything(b);
            return;
        }
        int at = headers.get(which % headers.size());
        ByteBuffer.wrap(b).order(ByteOrder.nativeOrder()).putShort(at, (short) newLen);
        decodeEverything(b);
        // And the same corruption inside a datagram, after a valid message.
        decodeEverything(concat(List.of(seeds().get(0), b)));
    }

    @Property(tries = 3000)
    void flippingRandomBytesOfAValidMessageGivesValueOrMalformed(@ForAll("seedIndex") int seed,
            @ForAll @Size(min = 1, max = 8) List<@IntRange(min = 0, max = 100_000) Integer> positions,
            @ForAll @Size(min = 8, max = 8) List<Byte> values) {
        byte[] b = seeds().get(seed).clone();
        for (int i = 0; i < positions.size(); i++) {
            b[positions.get(i) % b.length] = values.get(i);
        }
        decodeEverything(b);
    }

    /**
     * Every TLV header offset in a message, found by trying to read each payload as TLVs again,
     * so that corruption reaches nested attributes and rtnexthop lengths too.
     */
    static List<Integer> attributeHeaders(byte[] msg) {
        List<Integer> out = new ArrayList<>();
        ByteBuffer b = ByteBuffer.wrap(msg).order(ByteOrder.nativeOrder());
        int len = Math.min(msg.length, b.getInt(0));
        for (int h : FAMILY_HEADERS) {
            collectHeaders(b, NlMessage.HEADER_SIZE + h, len, out, 0);
        }
        return out.stream().distinct().sorted().collect(java.util.stream.Collectors.toList());
    }

    private static void collectHeaders(ByteBuffer b, int from, int to, List<Integer> out, int depth) {
        if (depth > 8 || from < 0 || to > b.limit()) {
            return;
        }
        int pos = from;
        List<int[]> found = new ArrayList<>();
        while (to - pos >= NLA_HDRLEN) {
            int len = Short.toUnsignedInt(b.getShort(pos));
            if (len < NLA_HDRLEN || len > to - pos) {
                return; // not a TLV run; leave this range alone
            }
            found.add(new int[] {pos, len});
            pos += NlMessage.align(len);
        }
        for (int[] f : found) {
            out.add(f[0]);
            collectHeaders(b, f[0] + NLA_HDRLEN, f[0] + f[1], out, depth + 1);
            collectHeaders(b, f[0] + 8, f[0] + f[1], out, depth + 1); // after an rtnexthop's 8 bytes
        }
    }

    // ------------------------------------------------------------------ nesting

    @Property(tries = 60)
    void linkinfoNestedFarPastAnyRealDepthDecodesOrFailsTyped(@ForAll @IntRange(min = 1, max = 16_370) int depth,
            @ForAll("nestTypes") int type, @ForAll boolean lieAboutInnermostLength) {
        byte[] msg = deepLink(depth, type, lieAboutInnermostLength);
        decodeEverything(msg);
    }

    @Test
    void maximalNestDepthWithinOneU16LengthDecodesOrFailsTyped() {
        // 16,370 levels of 4-byte nest headers is as deep as a u16 rta_len allows.
        for (int type : new int[] {Rtnl.IFLA_LINKINFO, Rtnl.IFLA_PROP_LIST}) {
            decodeEverything(deepLink(16_370, type, false));
            decodeEverything(deepLink(16_370, type, true));
        }
    }

    /**
     * A NEWLINK whose {@code outer} attribute holds IFLA_INFO_DATA / IFLA_LINKINFO alternately,
     * {@code depth} levels deep, ending in a "bond" kind string.
     */
    static byte[] deepLink(int depth, int outer, boolean lie) {
        NlRequest r = new NlRequest(Rtnl.RTM_NEWLINK, 0, 1)
                .header(new byte[Rtnl.IFINFOMSG_SIZE])
                .string(Rtnl.IFLA_IFNAME, "deep0");
        r.beginNest(outer);
        for (int i = 1; i < depth; i++) {
            r.beginNest(i % 2 == 1 ? Rtnl.IFLA_INFO_DATA : Rtnl.IFLA_LINKINFO);
        }
        r.string(Rtnl.IFLA_INFO_KIND, "bond");
        for (int i = 0; i < depth; i++) {
            r.endNest();
        }
        byte[] b = r.toBytes();
        if (lie) {
            // The outermost nest claims two bytes more than the message holds.
            int at = NlMessage.HEADER_SIZE + Rtnl.IFINFOMSG_SIZE + 12;
            ByteBuffer bb = ByteBuffer.wrap(b).order(ByteOrder.nativeOrder());
            bb.putShort(at, (short) Math.min(0xffff, Short.toUnsignedInt(bb.getShort(at)) + 2));
        }
        return b;
    }

    // ------------------------------------------------------------ random bytes

    @Property(tries = 3000)
    void randomBytesGiveValueOrMalformed(@ForAll @Size(max = 600) byte[] input) {
        decodeEverything(input);
    }

    @Property(tries = 3000)
    void randomBodyBehindAPlausibleHeaderGivesValueOrMalformed(
            @ForAll("messageTypes") int type, @ForAll @Size(max = 400) byte[] body) {
        byte[] b = new byte[NlMessage.HEADER_SIZE + body.length];
        ByteBuffer.wrap(b).order(ByteOrder.nativeOrder()).putInt(0, b.length).putShort(4, (short) type);
        System.arraycopy(body, 0, b, NlMessage.HEADER_SIZE, body.length);
        decodeEverything(b);
    }

    @Property(tries = 1000)
    void attributesParseOfAnyRangeGivesValueOrMalformed(
            @ForAll @Size(max = 200) byte[] input, @ForAll int from, @ForAll int to) {
        ByteBuffer buf = ByteBuffer.wrap(input);
        try {
            Attributes.parse(buf, from, to);
        } catch (MalformedException e) {
            // A range outside the buffer is refused with a typed error too, never an IndexOutOfBounds.
        }
        if (input.length > 0) {
            int f = Math.floorMod(from, input.length + 1);
            int t = f + Math.floorMod(to, input.length - f + 1);
            walkAttributes(buf, f, t);
        }
    }

    @Property(tries = 1000)
    void datagramsOfSeveralMessagesWithOneCorruptedGiveValueOrMalformed(
            @ForAll @Size(min = 1, max = 4) List<@IntRange(min = 0, max = 1000) Integer> picks,
            @ForAll @IntRange(min = 0, max = 100_000) int where,
            @ForAll byte value) {
        List<byte[]> parts = new ArrayList<>();
        for (int p : picks) {
            parts.add(seeds().get(p % seeds().size()));
        }
        byte[] d = concat(parts);
        d[where % d.length] = value;
        decodeEverything(d);
    }

    // ------------------------------------------------------------------ arbitraries

    @Provide
    Arbitrary<Integer> seedIndex() {
        return Arbitraries.integers().between(0, seeds().size() - 1);
    }

    @Provide
    Arbitrary<Integer> u32Lengths() {
        return Arbitraries.oneOf(
                Arbitraries.of(0, 1, 3, 4, 15, 16, 17, 19, 20, 0x7fffffff, 0x80000000, 0xffffffff, 0xfffffff0),
                Arbitraries.integers().between(0, 2048),
                Arbitraries.integers());
    }

    @Provide
    Arbitrary<Integer> u16Lengths() {
        return Arbitraries.oneOf(
                Arbitraries.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 20, 0x7fff, 0x8000, 0xfffc, 0xffff),
                Arbitraries.integers().between(0, 0xffff));
    }

    @Provide
    Arbitrary<Integer> nestTypes() {
        return Arbitraries.of(Rtnl.IFLA_LINKINFO, Rtnl.IFLA_LINKINFO | Attributes.NLA_F_NESTED, Rtnl.IFLA_PROP_LIST,
                Rtnl.IFLA_IFNAME);
    }

    @Provide
    Arbitrary<Integer> messageTypes() {
        return Arbitraries.oneOf(
                Arbitraries.of(NlMessage.NLMSG_ERROR, NlMessage.NLMSG_DONE, Rtnl.RTM_NEWLINK, Rtnl.RTM_NEWADDR,
                        Rtnl.RTM_NEWROUTE, Rtnl.RTM_NEWNSID),
                Arbitraries.integers().between(0, 0xffff));
    }

    static byte[] concat(List<byte[]> parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += NlMessage.align(p.length);
        }
        ByteBuffer out = ByteBuffer.allocate(n);
        for (byte[] p : parts) {
            out.put(p);
            out.position(NlMessage.align(out.position()));
        }
        return out.array();
    }
}
