package io.cmdemux.netdev;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.cmdemux.netdev.testkit.DecoderContract;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * Jazzer fuzz target for the rtnetlink codec: a datagram as the kernel (or anyone who can send to our
 * netlink socket) hands it over, through NlMessage.split/of and every Rtnl decoder. The committed inputs
 * (RtnetlinkJazzerTestInputs/, see its README) are replayed by every test run; scripts/fuzz fuzzes.
 */
class RtnetlinkJazzerTest {
    /**
     * Records, strings and lists per attribute, decoded by five decoders: 64 bytes of objects per input
     * byte is generous, and nothing near what a length field claiming 64 KiB (rta_len) or 4 GiB
     * (nlmsg_len) would cost if it were believed.
     */
    private static final DecoderContract.Budget BUDGET = new DecoderContract.Budget(64 << 10, 64);

    /**
     * Every MalformedException points inside the bytes it is about: split's and of's inside the datagram,
     * a decoder's inside its message (offsets count from the datagram's start). The per-attribute
     * accessor checks of the jqwik fuzzing (NetlinkCodecFuzzTest) cost ten times the decoding, so they
     * stay there.
     */
    @FuzzTest
    void anyDatagramDecodesOrIsMalformed(byte[] datagram) throws Exception {
        DecoderContract.check(datagram.length, BUDGET, () -> decodeWithEveryDecoder(datagram));
    }

    /** Each decoder on each message; one decoder refusing a message does not keep the others from trying. */
    private static void decodeWithEveryDecoder(byte[] datagram) {
        List<NlMessage> messages;
        try {
            messages = NlMessage.split(ByteBuffer.wrap(datagram));
        } catch (MalformedException e) {
            within(e, 0, datagram.length);
            messages = List.of();
        }
        for (NlMessage m : messages) {
            if (m.offset() < 0 || m.length() < NlMessage.HEADER_SIZE || m.offset() + m.length() > datagram.length) {
                throw new AssertionError("message at " + m.offset() + " of " + m.length() + " bytes in a "
                        + datagram.length + "-byte datagram");
            }
            for (Decoder d : DECODERS) {
                try {
                    d.decode(m);
                } catch (MalformedException e) {
                    within(e, m.offset(), m.offset() + m.length());
                }
            }
        }
        try {
            NlMessage.of(datagram);
        } catch (MalformedException e) {
            within(e, 0, datagram.length);
        }
    }

    private static void within(MalformedException e, int from, int to) {
        if (e.offset() < from || e.offset() > Math.max(from, to - 1)) {
            throw new AssertionError("offset of \"" + e.getMessage() + "\" outside [" + from + ", " + to + ")", e);
        }
    }

    private interface Decoder {
        Object decode(NlMessage m) throws MalformedException;
    }

    private static final List<Decoder> DECODERS = List.of(Rtnl::decodeLink, Rtnl::decodeAddress, Rtnl::decodeRoute,
            Rtnl::decodeNeighbor, Rtnl::decodeNsid, NlMessage::error);
}
