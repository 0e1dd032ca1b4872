package io.cmdemux.ingress.wire;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/** Big-endian field access on byte arrays, the byte order of every IBTA and IP header. */
final class Be {
    // Intrinsics: one bounds check and one load each, where the shifts below take four.
    private static final VarHandle U16 = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle U32 = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle U64 = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private Be() {}

    static int u8(byte[] b, int i) {
        return b[i] & 0xff;
    }

    static int u16(byte[] b, int i) {
        return (short) U16.get(b, i) & 0xffff;
    }

    static int u24(byte[] b, int i) {
        return ((b[i] & 0xff) << 16) | ((b[i + 1] & 0xff) << 8) | (b[i + 2] & 0xff);
    }

    static int u32(byte[] b, int i) {
        return (int) U32.get(b, i);
    }

    static long u64(byte[] b, int i) {
        return (long) U64.get(b, i);
    }

    static void put8(byte[] b, int i, int v) {
        b[i] = (byte) v;
    }

    static void put16(byte[] b, int i, int v) {
        b[i] = (byte) (v >>> 8);
        b[i + 1] = (byte) v;
    }

    static void put24(byte[] b, int i, int v) {
        b[i] = (byte) (v >>> 16);
        b[i + 1] = (byte) (v >>> 8);
        b[i + 2] = (byte) v;
    }

    static void put32(byte[] b, int i, int v) {
        b[i] = (byte) (v >>> 24);
        b[i + 1] = (byte) (v >>> 16);
        b[i + 2] = (byte) (v >>> 8);
        b[i + 3] = (byte) v;
    }

    static void put64(byte[] b, int i, long v) {
        put32(b, i, (int) (v >>> 32));
        put32(b, i + 4, (int) v);
    }

    /** Checks that a value fits an unsigned field of {@code bits} bits; records call it to keep their invariants. */
    static int check(String field, int value, int bits) {
        if (bits < 32 && (value < 0 || value >= (1 << bits))) {
            throw new IllegalArgumentException(field + " = " + value + " does not fit " + bits + " bits");
        }
        return value;
    }
}
