package io.cmdemux.control.protocol;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Bytes ⇄ {@link Frame}, with no I/O. The header is 16 bytes:
 * <pre>
 *  0  u8  version     4  u16 format     8  u32 length (header + records)
 *  1  u8  type        6  u16 flags     12  u32 seq
 *  2  u16 status
 * </pre>
 * followed, when format is RECORDS, by one or more records of {u16 type, u16 flags, u32 length
 * (record header included), value}.
 */
public final class FrameCodec {
    private FrameCodec() {}

    public static int encodedLength(Frame f) {
        long n = Wire.HEADER_SIZE;
        for (Record r : f.records()) {
            n += Wire.RECORD_HEADER_SIZE + r.length();
        }
        if (n > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("frame of " + n + " bytes cannot be encoded");
        }
        return (int) n;
    }

    public static byte[] encode(Frame f) {
        byte[] out = new byte[encodedLength(f)];
        ByteBuffer b = ByteBuffer.wrap(out);
        b.put((byte) f.version());
        b.put((byte) f.type());
        b.putShort((short) f.status());
        b.putShort((short) f.format());
        b.putShort((short) f.flags());
        b.putInt(out.length);
        b.putInt(f.seq());
        for (Record r : f.records()) {
            b.putShort((short) r.type());
            b.putShort((short) r.flags());
            b.putInt(Wire.RECORD_HEADER_SIZE + r.length());
            r.writeValue(b);
        }
        return out;
    }

    /**
     * Decodes exactly one frame that fills {@code bytes}.
     *
     * @throws ProtocolException EPROTONOSUPPORT for another version, EMSGSIZE above {@code maxLength},
     *     EBADMSG for lengths that do not add up, EOPNOTSUPP for an unknown format
     */
    public static Frame decode(byte[] bytes, int maxLength) throws ProtocolException {
        if (bytes.length < Wire.HEADER_SIZE) {
            throw new ProtocolException(Wire.EBADMSG, bytes.length,
                    "frame shorter than the " + Wire.HEADER_SIZE + "-byte header");
        }
        ByteBuffer b = ByteBuffer.wrap(bytes);
        int version = b.get() & 0xff;
        int type = b.get() & 0xff;
        int status = b.getShort() & 0xffff;
        int format = b.getShort() & 0xffff;
        int flags = b.getShort() & 0xffff;
        long length = b.getInt() & 0xffffffffL;
        int seq = b.getInt();
        if (version != Wire.VERSION) {
            throw new ProtocolException(Wire.EPROTONOSUPPORT, 0,
                    "protocol version " + version + " is not supported (this daemon speaks " + Wire.VERSION + ")");
        }
        if (length > maxLength) {
            throw new ProtocolException(Wire.EMSGSIZE, 8, "frame length " + length
                    + " exceeds the limit of " + maxLength);
        }
        if (length != bytes.length) {
            throw new ProtocolException(Wire.EBADMSG, 8, "header says " + length + " bytes, frame has " + bytes.length);
        }
        List<Record> records = new ArrayList<>();
        switch (format) {
            case Wire.FORMAT_NONE:
                if (bytes.length != Wire.HEADER_SIZE) {
                    throw new ProtocolException(Wire.EBADMSG, Wire.HEADER_SIZE,
                            "format NONE but " + (bytes.length - Wire.HEADER_SIZE) + " bytes follow the header");
                }
                break;
            case Wire.FORMAT_RECORDS:
                if (bytes.length == Wire.HEADER_SIZE) {
                    throw new ProtocolException(Wire.EBADMSG, Wire.HEADER_SIZE,
                            "format RECORDS but no record follows the header");
                }
                while (b.hasRemaining()) {
                    int at = b.position();
                    if (b.remaining() < Wire.RECORD_HEADER_SIZE) {
                        throw new ProtocolException(Wire.EBADMSG, at,
                                "truncated record header (" + b.remaining() + " bytes left)");
                    }
                    int rtype = b.getShort() & 0xffff;
                    int rflags = b.getShort() & 0xffff;
                    long rlen = b.getInt() & 0xffffffffL;
                    if (rlen < Wire.RECORD_HEADER_SIZE) {
                        throw new ProtocolException(Wire.EBADMSG, at + 4,
                                "record length " + rlen + " is shorter than its own header");
                    }
                    if (rlen - Wire.RECORD_HEADER_SIZE > b.remaining()) {
                        throw new ProtocolException(Wire.EBADMSG, at + 4,
                                "record length " + rlen + " runs past the end of the frame");
                    }
                    byte[] value = new byte[(int) rlen - Wire.RECORD_HEADER_SIZE];
                    b.get(value);
                    records.add(new Record(rtype, rflags, value));
                }
                break;
            default:
                throw new ProtocolException(Wire.EOPNOTSUPP, 4, "unknown body format " + format);
        }
        return new Frame(version, type, status, format, flags, seq, records);
    }
}
