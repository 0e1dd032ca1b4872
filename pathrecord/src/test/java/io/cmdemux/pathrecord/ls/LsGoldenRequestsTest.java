package io.cmdemux.pathrecord.ls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cmdemux.gid.Gid;
import io.cmdemux.netdev.InetAddresses;
import io.cmdemux.netdev.MalformedException;
import io.cmdemux.netdev.NlMessage;
import io.cmdemux.pathrecord.testkit.LsGolden;
import io.cmdemux.pathrecord.testkit.LsGolden.Expect;
import io.cmdemux.pathrecord.testkit.LsGolden.Golden;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Our decoder against RDMA_NL_LS messages laid out in C from the uapi headers the way sa_query.c
 * and addr.c write them (src/test/c/ls_golden.c), for every path_use and the attribute mixes of the
 * kernel's callers; expectations are the values the C program put in. Our encoder must give the
 * same bytes back, so a wrong constant or padding rule on either side shows up.
 */
class LsGoldenRequestsTest {

    @Test
    void everyResolveRequestOfTheKernelDecodesToTheValuesItCarries() {
        List<Golden> all = LsGolden.ofClass("resolve");
        assertThat(all).hasSizeGreaterThanOrEqualTo(16);
        for (Golden g : all) {
            Expect e = g.expect();
            LsMessage m = decode(g.bytes());
            assertThat(m).as(g.name()).isInstanceOf(LsMessage.ResolveRequest.class);
            LsMessage.ResolveRequest r = (LsMessage.ResolveRequest) m;
            assertThat(r.seq()).as(g.name() + " seq").isEqualTo(e.i("seq"));
            assertThat(Ls.TYPE_RESOLVE).as(g.name() + " type").isEqualTo(e.i("type"));
            assertThat(NlMessage.NLM_F_REQUEST).as(g.name() + " flags").isEqualTo(e.i("flags"));
            assertThat(r.portId()).isZero();
            assertThat(r.device()).as(g.name() + " device").isEqualTo(e.s("device"));
            assertThat(r.port()).as(g.name() + " port").isEqualTo(e.i("port"));
            assertThat(r.pathUse()).as(g.name() + " path_use").isEqualTo(e.i("path_use"));
            assertThat(r.use().cliName()).as(g.name() + " use").isEqualTo(e.s("use"));
            if (e.absent("service_id")) {
                assertThat(r.serviceId()).as(g.name()).isEmpty();
            } else {
                assertThat(r.serviceId()).as(g.name() + " service_id").hasValue(e.l("service_id"));
            }
            assertThat(r.dgid()).as(g.name() + " dgid").isEqualTo(e.absent("dgid") ? null : Gid.parse(e.s("dgid")));
            assertThat(r.sgid()).as(g.name() + " sgid").isEqualTo(e.absent("sgid") ? null : Gid.parse(e.s("sgid")));
            optional(g, e, "tclass", r.tclass());
            optional(g, e, "pkey", r.pkey());
            optional(g, e, "qos_class", r.qosClass());
            if (g.values().containsKey("ignored")) {
                assertThat(r.ignoredAttributes()).as(g.name() + " ignored").isEqualTo(e.i("ignored"));
            } else {
                assertThat(r.ignoredAttributes()).isZero();
                // Nothing but the kernel's own attributes: our encoder
                // (which plays the kernel in tests) gives the same bytes.
                assertThat(HexFormat.of().formatHex(LsCodec.encodeResolveRequest(r)))
                        .as(g.name() + ": our bytes vs ls_golden.c")
                        .isEqualTo(HexFormat.of().formatHex(g.bytes()));
            }
            e.assertAllChecked();
        }
    }

    private static void optional(Golden g, Expect e, String key, java.util.OptionalInt actual) {
        if (e.absent(key)) {
            assertThat(actual).as(g.name() + " " + key).isEmpty();
        } else {
            assertThat(actual).as(g.name() + " " + key).hasValue(e.i(key));
        }
    }

    @Test
    void badRequestsAreRefusedWithTheReasonAndOffset() {
        List<Golden> bad = LsGolden.ofClass("bad");
        assertThat(bad)
                .extracting(Golden::name)
                .contains("unknown-mandatory-attribute", "sgid-15-bytes", "pkey-4-bytes", "attribute-past-the-end",
                        "attribute-below-its-header", "truncated-resolve-header", "device-name-without-nul",
                        "unknown-op");
        for (Golden g : bad) {
            Expect e = g.expect();
            NlMessage m = nl(g.bytes());
            // The nlmsghdr itself is intact, so a responder can still echo the seq in an error reply.
            assertThat(m.seq()).as(g.name()).isEqualTo(e.i("seq"));
            assertThatThrownBy(() -> LsCodec.decode(m)).as(g.name()).isInstanceOf(MalformedException.class)
                    .hasMessageContaining(e.s("reason"));
            // The other values only describe how the message was built;
            // seq and reason are what a bad message is judged by.
        }
    }

    @Test
    void anUnknownAttributeWithoutTheMandatoryBitIsSkippedLikeIbacmDoes() {
        Golden g = LsGolden.get("unknown-optional-attribute");
        LsMessage.ResolveRequest r = (LsMessage.ResolveRequest) decode(g.bytes());
        assertThat(r.ignoredAttributes()).isEqualTo(1);
        assertThat(r.dgid()).isNotNull();
    }

    @Test
    void setTimeoutMatchesTheCLayoutByteForByte() {
        Golden g = LsGolden.get("set-timeout-1500");
        Expect e = g.expect();
        byte[] ours = LsCodec.encodeSetTimeout(e.i("seq"), 0, e.i("timeout"), false);
        assertThat(HexFormat.of().formatHex(ours)).isEqualTo(HexFormat.of().formatHex(g.bytes()));
        LsMessage.SetTimeout t = (LsMessage.SetTimeout) decode(g.bytes());
        assertThat(t.timeoutMs()).hasValue(e.i("timeout"));
        assertThat(t.flags()).isEqualTo(e.i("flags"));
        assertThat(Ls.TYPE_SET_TIMEOUT).isEqualTo(e.i("type"));
        e.assertAllChecked();
    }

    @Test
    void ipResolveRequestsOfBothFamiliesDecodeAndReencodeToTheSameBytes() {
        for (Golden g : LsGolden.ofClass("ip")) {
            Expect e = g.expect();
            LsMessage.IpResolveRequest r = (LsMessage.IpResolveRequest) decode(g.bytes());
            assertThat(r.seq()).isEqualTo(e.i("seq"));
            assertThat(r.ifindex()).isEqualTo(e.i("ifindex"));
            assertThat(r.ip()).isEqualTo(InetAddresses.parse(e.s("ip")));
            assertThat(HexFormat.of().formatHex(LsCodec.encodeIpResolveRequest(r))).as(g.name())
                    .isEqualTo(HexFormat.of().formatHex(g.bytes()));
            e.assertAllChecked();
        }
    }

    static NlMessage nl(byte[] b) {
        try {
            return NlMessage.of(b);
        } catch (MalformedException e) {
            throw new AssertionError("the golden message's nlmsghdr does not parse: " + e.getMessage(), e);
        }
    }

    static LsMessage decode(byte[] b) {
        try {
            return LsCodec.decode(nl(b));
        } catch (MalformedException e) {
            throw new AssertionError("decode failed: " + e.getMessage(), e);
        }
    }
}
