package io.cmdemux.ingress.wire;

import java.util.Arrays;
import java.util.HexFormat;

/** An immutable byte string: private data, ARI, additional information. Equal by content. */
public final class Octets {
    private static final HexFormat HEX = HexFormat.of();
    private final byte[] bytes;

    private Octets(byte[] bytes) {
        this.bytes = bytes;
    }

    public static Octets of(byte[] bytes) {
        return new Octets(bytes.clone());
    }

    public static Octets copyOf(byte[] source, int offset, int length) {
        return new Octets(Arrays.copyOfRange(source, offset, offset + length));
    }

    public static Octets zeros(int length) {
        return new Octets(new byte[length]);
    }

    /** This value at exactly {@code length} bytes, zero padded; fails if it is longer. */
    Octets padTo(int length, String field) {
        if (bytes.length == length) {
            return this;
        }
        if (bytes.length > length) {
            throw new IllegalArgumentException(field + " has " + bytes.length + " bytes, the field holds " + length);
        }
        return new Octets(Arrays.copyOf(bytes, length));
    }

    public int length() {
        return bytes.length;
    }

    public byte get(int i) {
        return bytes[i];
    }

    public byte[] toByteArray() {
        return bytes.clone();
    }

    public Octets slice(int offset, int length) {
        return new Octets(Arrays.copyOfRange(bytes, offset, offset + length));
    }

    void copyTo(byte[] dst, int offset) {
        System.arraycopy(bytes, 0, dst, offset, bytes.length);
    }

    public String hex() {
        return HEX.formatHex(bytes);
    }

    public boolean allZero() {
        for (byte b : bytes) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Octets other && Arrays.equals(bytes, other.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return hex();
    }
}
