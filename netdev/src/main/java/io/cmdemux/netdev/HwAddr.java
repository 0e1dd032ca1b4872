package io.cmdemux.netdev;

import java.util.Arrays;
import java.util.HexFormat;

/** A link-layer address: 6 bytes for Ethernet, 20 for IPoIB (QPN + GID). Immutable. */
public final class HwAddr {
    private static final HexFormat COLONS = HexFormat.ofDelimiter(":");
    private final byte[] bytes;

    private HwAddr(byte[] bytes) {
        this.bytes = bytes;
    }

    public static HwAddr of(byte[] bytes) {
        return new HwAddr(bytes.clone());
    }

    /** Parses "aa:bb:cc:dd:ee:ff" (any length). */
    public static HwAddr parse(String text) {
        return new HwAddr(COLONS.parseHex(text.trim().toLowerCase()));
    }

    public byte[] bytes() {
        return bytes.clone();
    }

    public int length() {
        return bytes.length;
    }

    public byte get(int i) {
        return bytes[i];
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof HwAddr h && Arrays.equals(bytes, h.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    /** The form iproute2 prints: lower-case hex, colon separated. */
    @Override
    public String toString() {
        return COLONS.formatHex(bytes);
    }
}
