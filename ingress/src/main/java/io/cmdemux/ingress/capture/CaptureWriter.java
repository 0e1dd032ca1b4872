package io.cmdemux.ingress.capture;

import io.cmdemux.netdev.PcapWriter;
import java.io.IOException;
import java.io.OutputStream;

/** Writes RoCEv2 frames to a classic pcap file: Ethernet frames, or bare IP packets (LINKTYPE_RAW). */
public final class CaptureWriter implements AutoCloseable {
    private final PcapWriter pcap;
    private long timestampMicros;

    private CaptureWriter(OutputStream out, int linktype) throws IOException {
        this.pcap = new PcapWriter(out, linktype);
    }

    public static CaptureWriter ethernet(OutputStream out) throws IOException {
        return new CaptureWriter(out, PcapWriter.LINKTYPE_ETHERNET);
    }

    public static CaptureWriter rawIp(OutputStream out) throws IOException {
        return new CaptureWriter(out, PcapWriter.LINKTYPE_RAW);
    }

    /** Writes a frame stamped one microsecond after the previous one. */
    public void write(byte[] frame) throws IOException {
        pcap.write(timestampMicros++, frame);
    }

    public void write(long timestampMicros, byte[] frame) throws IOException {
        pcap.write(timestampMicros, frame);
    }

    @Override
    public void close() throws IOException {
        pcap.close();
    }
}
