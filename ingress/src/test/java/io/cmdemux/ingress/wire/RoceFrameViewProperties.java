package io.cmdemux.ingress.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cmdemux.gid.Gid;
import io.cmdemux.netdev.MalformedException;
import java.net.InetAddress;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * What the receive path reads in place equals what the record decoder (checked against tshark and the
 * IBTA tables elsewhere) reads, for any CM data in any frame shape; fields that the message does not
 * have are refused, not misread.
 */
class RoceFrameViewProperties {

    @Property(tries = 1000)
    void inPlaceFieldsEqualTheRecords(@ForAll CmAttribute attribute, @ForAll @Size(232) byte[] data, @ForAll boolean v6,
            @ForAll boolean tagged, @ForAll boolean bareIp, @ForAll boolean corruptIcrc) throws Exception {
        byte[] mad = Frames.sendMad(attribute, data);
        L3Header l3 = v6 ? new L3Header(6, Gid.parse("fd00::1"), Gid.parse("fd00::2"), 3, 9, 0x12345)
                : new L3Header(4, Gid.parse("::ffff:1.2.3.4"), Gid.parse("::ffff:5.6.7.8"), 3, 9, 0);
        byte[] frame = RoceFrameBuilder.cmFrame(CmSamples.l2(tagged ? new Vlan(2, true, 33) : null), l3, 0xD000, 0x7FFF,
                77, CmCodec.decode(mad, 0, Mad.SIZE));
        if (corruptIcrc) {
            frame[frame.length - 1] ^= 0x20;
        }
        int l3At = Frames.ETH + (tagged ? Frames.VLAN : 0);
        RoceFrameView view =
                bareIp ? RoceFrameView.ip(frame, l3At, frame.length) : RoceFrameView.ethernet(frame, 0, frame.length);
        RoceFrame records = view.toFrame();

        assertThat(view.icrcValid()).isEqualTo(!corruptIcrc);
        assertThat(view.attribute()).isEqualTo(attribute);
        assertThat(view.ipVersion()).isEqualTo(v6 ? 6 : 4);
        assertThat(view.ipSrc()).isEqualTo(l3.src());
        assertThat(view.ipDst()).isEqualTo(l3.dst());
        assertThat(view.bthPkey()).isEqualTo(0x7FFF);
        assertThat(view.vlanId()).isEqualTo(tagged && !bareIp ? 33 : -1);
        assertThat(view.l2Dst()).isEqualTo(bareIp ? null : CmSamples.l2(null).dst());
        assertViewReadsAsTheRecords(view, records);
    }

    /**
     * Every field the receive path reads in place equals the same field of the records; the fields a
     * message does not have are refused. Shared with the Jazzer target (RoceFrameJazzerTest).
     */
    static void assertViewReadsAsTheRecords(RoceFrameView view, RoceFrame records) throws Exception {
        assertThat(view.icrcValid()).isEqualTo(records.icrcValid());
        assertThat(view.attribute()).isEqualTo(records.mad().message().attribute());
        assertThat(view.ipVersion()).isEqualTo(records.l3().ipVersion());
        assertThat(view.ipSrc()).isEqualTo(records.l3().src());
        assertThat(view.ipDst()).isEqualTo(records.l3().dst());
        assertThat(view.bthPkey()).isEqualTo(records.bth().pkey());
        assertThat(view.vlanId())
                .isEqualTo(
                        records.l2() == null || records.l2().vlan() == null
                                ? -1
                                : records.l2().vlan().vid());
        assertThat(view.l2Dst()).isEqualTo(records.l2() == null ? null : records.l2().dst());
        assertThat(view.transactionId()).isEqualTo(records.mad().header().transactionId());
        assertThat(view.l2()).isEqualTo(records.l2());
        assertThat(view.l3()).isEqualTo(records.l3());
        CmMessage m = records.mad().message();
        int[] commIds = m instanceof CmReq r ? new int[] {r.localCommId()}
                : m instanceof CmMra r ? new int[] {r.localCommId(), r.remoteCommId()}
                : m instanceof CmRej r ? new int[] {r.localCommId(), r.remoteCommId()}
                : m instanceof CmRep r ? new int[] {r.localCommId(), r.remoteCommId()}
                : m instanceof CmRtu r ? new int[] {r.localCommId(), r.remoteCommId()}
                : m instanceof CmDreq r ? new int[] {r.localCommId(), r.remoteCommId()}
                : m instanceof CmDrep r ? new int[] {r.localCommId(), r.remoteCommId()}
                : new int[0]; // SIDR REQ and REP have none
        if (commIds.length == 0) {
            assertThatThrownBy(view::localCommId).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(view::remoteCommId).isInstanceOf(IllegalStateException.class);
        } else {
            assertThat(view.localCommId()).isEqualTo(commIds[0]);
            if (commIds.length == 2) {
                assertThat(view.remoteCommId()).isEqualTo(commIds[1]);
            } else {
                assertThatThrownBy(view::remoteCommId).isInstanceOf(IllegalStateException.class);
            }
        }
        // An answer built from the view is the one built from the records, byte for byte.
        CmRtu answer = new CmRtu(0x1234, 0x5678, Octets.zeros(0));
        assertThat(RoceFrameBuilder.reply(view, answer, 0xC000, 5))
                .isEqualTo(RoceFrameBuilder.reply(records, answer, 0xC000, 5));
        if (m instanceof CmReq req) {
            assertThat(view.requestId()).isEqualTo(req.localCommId());
            assertThat(view.serviceId()).isEqualTo(req.serviceId());
            assertThat(view.localCaGuid()).isEqualTo(req.localCaGuid());
            assertThat(view.requestPkey()).isEqualTo(req.pkey());
            assertThat(view.primaryRemoteGid()).isEqualTo(req.primaryPath().remoteGid());
            assertThat(view.primaryLocalGid()).isEqualTo(req.primaryPath().localGid());
            assertThat(view.addressing()).isEqualTo(CmAddressing.of(req));
            assertCmaHeader(view, req.privateData());
        } else if (m instanceof CmSidrReq sidr) {
            assertThat(view.requestId()).isEqualTo(sidr.requestId());
            assertThat(view.serviceId()).isEqualTo(sidr.serviceId());
            assertThat(view.requestPkey()).isEqualTo(sidr.pkey());
            assertThat(view.addressing()).isEqualTo(CmAddressing.of(sidr.serviceId(), sidr.privateData()));
            assertCmaHeader(view, sidr.privateData());
            assertThatThrownBy(view::primaryRemoteGid).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(view::localCaGuid).isInstanceOf(IllegalStateException.class);
        } else {
            assertThatThrownBy(view::serviceId).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(view::localCaGuid).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(view::requestId).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(view::addressing).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(view::cmaSrcPort).isInstanceOf(IllegalStateException.class);
        }
    }

    private static void assertCmaHeader(RoceFrameView view, Octets privateData) throws Exception {
        CmaHeader h = CmaHeader.decode(privateData);
        assertThat(view.cmaVersion()).isEqualTo(h.cmaVersion());
        assertThat(view.cmaIpVersion()).isEqualTo(h.ipVersion());
        assertThat(view.cmaSrcPort()).isEqualTo(h.srcPort());
        assertThat(view.cmaSrcAddr()).isEqualTo(h.srcAddr());
        assertThat(view.cmaDstAddr()).isEqualTo(h.dstAddr());
    }

    /**
     * The shortcut takes the common frames, IPv4 and IPv6, and only the one it is for; what it reads is what the full
     * checks read.
     */
    @Example
    void theShortcutTakesTheCommonFrames() throws Exception {
        for (boolean sidr : new boolean[] {false, true}) {
            byte[] v4 = Frames.frame(null, Frames.addr("10.0.0.2"), Frames.addr("10.0.0.5"),
                    sidr ? CmSamples.sidrReq() : CmSamples.req(Frames.addr("10.0.0.2"), Frames.addr("10.0.0.5")));
            byte[] v6 = Frames.frame(null, Frames.addr("fd00::2"), Frames.addr("fd00::5"),
                    sidr ? CmSamples.sidrReq() : CmSamples.req(Frames.addr("fd00::2"), Frames.addr("fd00::5")));
            assertThat(new RoceFrameView().plainV4(v4, 0)).isTrue();
            assertThat(new RoceFrameView().plainV6(v6, 0)).isTrue();
            assertThat(new RoceFrameView().plainV6(v4, 0)).isFalse();
            assertThat(new RoceFrameView().plainV4(Arrays.copyOf(v6, v4.length), 0)).isFalse();
            RoceFrameView shortcut = new RoceFrameView();
            shortcut.plainV6(v6, 0);
            assertThat(shortcut.icrcValid()).isTrue();
            assertThat(shortcut.toFrame())
                    .isEqualTo(new RoceFrameView()
                            .wrapEthernetChecked(v6, 0, v6.length)
                            .toFrame());
        }
    }

    /**
     * The word-at-a-time check of the common frame accepts nothing that the field-by-field checks refuse,
     * and reads what they read: headers mutated anywhere in the first 80 bytes (IPv6: 100), where every
     * checked field is.
     */
    @Property(tries = 5000)
    void theShortcutAgreesWithTheFullChecks(@ForAll @Size(min = 1, max = 4) int[] positions,
            @ForAll @Size(min = 1, max = 4) byte[] values, @ForAll boolean sidr, @ForAll boolean v6)
            throws Exception {
        InetAddress src = Frames.addr(v6 ? "fd00::2" : "10.0.0.2");
        InetAddress dst = Frames.addr(v6 ? "fd00::5" : "10.0.0.5");
        byte[] f = Frames.frame(null, src, dst, sidr ? CmSamples.sidrReq() : CmSamples.req(src, dst));
        for (int i = 0; i < positions.length; i++) {
            f[Math.floorMod(positions[i], v6 ? 100 : 80)] = values[i % values.length];
        }
        RoceFrame shortcut;
        try {
            shortcut = new RoceFrameView().wrapEthernet(f, 0, f.length).toFrame();
        } catch (MalformedException e) {
            assertThatThrownBy(() -> new RoceFrameView().wrapEthernetChecked(f, 0, f.length))
                    .isInstanceOf(MalformedException.class)
                    .hasMessage(e.getMessage());
            return;
        }
        assertThat(new RoceFrameView().wrapEthernetChecked(f, 0, f.length).toFrame()).isEqualTo(shortcut);
    }

    /**
     * A frame inside a larger array, with other bytes before and after it, reads as the same frame alone
     * in its array, through the shortcut and through the full checks alike: the receive path reads its
     * fields at a variable start.
     */
    @Property(tries = 1000)
    void aFrameAtAnOffsetReadsAsTheFrameAlone(@ForAll @IntRange(max = 64) int before,
            @ForAll @IntRange(max = 64) int after, @ForAll @Size(128) byte[] around, @ForAll boolean sidr,
            @ForAll boolean v6, @ForAll boolean corruptIcrc)
            throws Exception {
        InetAddress src = Frames.addr(v6 ? "fd00::2" : "10.0.0.2");
        InetAddress dst = Frames.addr(v6 ? "fd00::5" : "10.0.0.5");
        byte[] alone = Frames.frame(null, src, dst, sidr ? CmSamples.sidrReq() : CmSamples.req(src, dst));
        if (corruptIcrc) {
            alone[alone.length - 1] ^= 0x20;
        }
        byte[] buffer = Arrays.copyOf(around, before + alone.length + after);
        System.arraycopy(alone, 0, buffer, before, alone.length);
        System.arraycopy(around, 64, buffer, before + alone.length, after);
        int end = before + alone.length;

        assertThat(v6 ? new RoceFrameView().plainV6(buffer, before) : new RoceFrameView().plainV4(buffer, before))
                .isTrue();
        List<Object> expected = receiveFields(RoceFrameView.ethernet(alone, 0, alone.length));
        assertThat(receiveFields(new RoceFrameView().wrapEthernet(buffer, before, end))).isEqualTo(expected);
        assertThat(receiveFields(new RoceFrameView().wrapEthernetChecked(buffer, before, end))).isEqualTo(expected);
        assertThat(expected.get(0)).isEqualTo(!corruptIcrc);
    }

    /** What the daemon reads of a request to route it, and the records of the rest. */
    private static List<Object> receiveFields(RoceFrameView v) {
        boolean req = v.attribute() == CmAttribute.REQ;
        return List.of(v.icrcValid(), v.attribute(), v.requestId(), v.serviceId(), v.requestPkey(), v.bthPkey(),
                v.transactionId(), req ? v.primaryRemoteGid() : Gid.ZERO, req ? v.primaryLocalGid() : Gid.ZERO,
                v.cmaVersion(), v.cmaIpVersion(), v.cmaSrcPort(), v.cmaSrcAddr(), v.cmaDstAddr(), v.addressing(),
                v.ipSrc(), v.ipDst(), v.toFrame());
    }

    /**
     * A frame that ends where its ICRC would start reads as the whole frame does, MAD bytes and all, and
     * is never valid (rxe takes the MAD's last 4 bytes for the ICRC and drops the frame); a view that
     * read one reads the next frame's ICRC again.
     */
    @Property(tries = 500)
    void aFrameWithoutItsIcrcReadsAsTheWholeFrameAndIsNeverValid(
            @ForAll CmAttribute attribute, @ForAll @Size(232) byte[] data, @ForAll boolean v6, @ForAll boolean tagged)
            throws Exception {
        InetAddress src = Frames.addr(v6 ? "fd00::2" : "10.0.0.2");
        InetAddress dst = Frames.addr(v6 ? "fd00::5" : "10.0.0.5");
        // The random CM data goes straight into the frame, reserved bits too.
        byte[] mad = Frames.sendMad(attribute, data);
        byte[] whole = Frames.withMad(Frames.frame(tagged ? Vlan.of(12) : null, src, dst, CmSamples.rtu()), mad);
        byte[] cut = Frames.withoutIcrc(whole);

        RoceFrameView view = RoceFrameView.ethernet(cut, 0, cut.length);
        assertThat(view.icrcMissing()).isTrue();
        assertThat(view.icrcValid()).isFalse();
        RoceFrame withIcrc = RoceFrameView.ethernet(whole, 0, whole.length).toFrame();
        RoceFrame without = view.toFrame();
        assertThat(without.icrcCheck()).isEqualTo(RoceFrame.IcrcCheck.MISSING);
        assertThat(without.mad()).isEqualTo(withIcrc.mad());
        assertThat(without.bth()).isEqualTo(withIcrc.bth());
        assertThat(without.l3()).isEqualTo(withIcrc.l3());
        assertThat(((FrameResult.Decoded) RoceDecoder.decodeEthernet(cut)).mad().toByteArray()).isEqualTo(mad);
        assertThat(((FrameResult.Decoded) RoceDecoder.decodeEthernet(whole)).mad().toByteArray()).isEqualTo(mad);
        assertThat(view.wrapEthernet(whole, 0, whole.length).icrcMissing()).isFalse();
        assertThat(view.icrcValid()).isTrue();
    }

    @Property(tries = 200)
    void aViewWrapsFrameAfterFrame(@ForAll boolean firstV6) throws Exception {
        byte[] v4 = Frames.reqV4(null);
        byte[] v6 = Frames.frame(Vlan.of(7), Frames.addr("fd00::1"), Frames.addr("fd00::9"),
                CmSamples.req(Frames.addr("fd00::1"), Frames.addr("fd00::9")));
        RoceFrameView view = new RoceFrameView();
        byte[] first = firstV6 ? v6 : v4;
        byte[] second = firstV6 ? v4 : v6;
        assertThat(view.wrapEthernet(first, 0, first.length).toFrame())
                .isEqualTo(RoceFrameView.ethernet(first, 0, first.length).toFrame());
        assertThat(view.wrapEthernet(second, 0, second.length).toFrame())
                .isEqualTo(RoceFrameView.ethernet(second, 0, second.length).toFrame());
        assertThat(view.vlanId()).isEqualTo(firstV6 ? -1 : 7);
    }
}
