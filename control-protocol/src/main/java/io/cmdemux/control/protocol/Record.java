package io.cmdemux.control.protocol;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** One record of a frame: a type, flags (bit 15: mandatory) and an opaque value. Immutable. */
public final class Record {
    private final int type;
    private final int flags;
    private final byte[] value;

    public Record(int type, int flags, byte[] value) {
        if (type < 0 || type > 0xffff || flags < 0 || flags > 0xffff) {
            throw new IllegalArgumentException("record type and flags are 16-bit: " + type + ", " + flags);
        }
        this.type = type;
        this.flags = flags;
        this.value = value.clone();
    }

    public static Record mandatory(int type, byte[] value) {
        return new Record(type, Wire.RECORD_MANDATORY, value);
    }

    public static Record optional(int type, byte[] value) {
        return new Record(type, 0, value);
    }

    public static Record text(int type, String s) {
        return new Record(type, 0, s.getBytes(StandardCharsets.UTF_8));
    }

    public int type() {
        return type;
    }

    public int flags() {
        return flags;
    }

    public boolean mandatory() {
        return (flags & Wire.RECORD_MANDATORY) != 0;
    }

    public int length() {
        return value.length;
    }

    public byte[] value() {
        return value.clone();
    }

    /** A read-only big-endian view of the value. */
    public ByteBuffer buffer() {
        return ByteBuffer.wrap(value).asReadOnlyBuffer();
    }

    /** The value as UTF-8; malformed sequences become U+FFFD rather than failing. */
    public String text() {
        return new String(value, StandardCharsets.UTF_8);
    }

    void writeValue(ByteBuffer out) {
        out.put(value);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Record r && r.type == type && r.flags == flags && Arrays.equals(r.value, value);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * type + flags) + Arrays.hashCode(value);
    }

    @Override
    public String toString() {
        return "Record[type=" + type + ", flags=0x" + Integer.toHexString(flags) + ", " + value.length + " bytes]";
    }
}
