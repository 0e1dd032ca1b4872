package io.cmdemux.ingress.capture;

import io.cmdemux.ingress.wire.FrameResult;
import io.cmdemux.ingress.wire.RoceDecoder;
import io.cmdemux.netdev.MalformedException;
import io.cmdemux.netdev.PcapReader;
import java.io.IOException;
import java.io.InputStream;

/**
 * Streams a pcap or pcapng capture and decodes each record as a RoCEv2 CM frame, one at a time, so a
 * capture of any size reads in constant memory. A record that is not a CM frame gives a
 * {@link FrameResult.Failed}; a file whose structure is broken throws {@link MalformedException}.
 */
public final class CaptureReader implements AutoCloseable {
    private final PcapReader pcap;

    public CaptureReader(InputStream in) throws IOException, MalformedException {
        this.pcap = new PcapReader(in);
    }

    /** The next frame, or null at the end of the file. */
    public CapturedFrame next() throws IOException, MalformedException {
        PcapReader.Record r = pcap.next();
        if (r == null) {
            return null;
        }
        return new CapturedFrame(
                r.index(), r.timestampNanos(), r.linktype(), r.data().length, decode(r.linktype(), r.data()));
    }

    /** Decodes one record's bytes by its link type. */
    public static FrameResult decode(int linktype, byte[] data) {
        switch (linktype) {
            case LinkTypes.ETHERNET:
                return RoceDecoder.decodeEthernet(data);
            case LinkTypes.RAW:
            case LinkTypes.IPV4:
            case LinkTypes.IPV6:
                return RoceDecoder.decodeIp(data);
            case LinkTypes.LINUX_SLL:
                return afterCookedHeader(data, LinkTypes.SLL_HEADER, 14);
            case LinkTypes.LINUX_SLL2:
                return afterCookedHeader(data, LinkTypes.SLL2_HEADER, 0);
            default:
                return new FrameResult.Failed(0, "link type " + linktype + " is not Ethernet, raw IP or Linux cooked");
        }
    }

    /** Linux cooked captures: a pseudo header with the ethertype, then the IP packet. */
    private static FrameResult afterCookedHeader(byte[] data, int headerLength, int protocolAt) {
        if (data.length < headerLength) {
            return new FrameResult.Failed(
                    0, "Linux cooked header needs " + headerLength + " bytes, " + data.length + " captured");
        }
        int protocol = ((data[protocolAt] & 0xff) << 8) | (data[protocolAt + 1] & 0xff);
        if (protocol != RoceDecoder.ETHERTYPE_IPV4 && protocol != RoceDecoder.ETHERTYPE_IPV6) {
            return new FrameResult.Failed(protocolAt, String.format("protocol 0x%04x is not IPv4 or IPv6", protocol));
        }
        FrameResult r = RoceDecoder.decodeIp(data, headerLength, data.length - headerLength);
        if (r instanceof FrameResult.Failed failed) {
            return new FrameResult.Failed(failed.offset() + headerLength, failed.reason());
        }
        return r;
    }

    public boolean pcapng() {
        return pcap.pcapng();
    }

    @Override
    public void close() throws IOException {
        pcap.close();
    }
}
