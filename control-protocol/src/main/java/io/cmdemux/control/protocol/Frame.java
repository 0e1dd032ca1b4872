package io.cmdemux.control.protocol;

import java.util.List;
import java.util.Optional;

/**
 * One protocol message: the data header's fields and the records that follow it.
 *
 * @param seq unsigned 32-bit; a reply carries its request's seq
 * @param status 0, or the errno of a failed request
 */
public record Frame(int version, int type, int status, int format, int flags, int seq, List<Record> records) {
    public Frame {
        records = List.copyOf(records);
    }

    /** A version-1 message with records (or none). */
    public static Frame of(int type, int seq, List<Record> records) {
        return new Frame(Wire.VERSION, type, Wire.OK, records.isEmpty() ? Wire.FORMAT_NONE : Wire.FORMAT_RECORDS, 0,
                seq, records);
    }

    /** The answer to {@code request}: same type and seq, REPLY set. */
    public static Frame reply(Frame request, int status, List<Record> records) {
        return new Frame(Wire.VERSION, request.type(), status,
                records.isEmpty() ? Wire.FORMAT_NONE : Wire.FORMAT_RECORDS, Wire.FLAG_REPLY, request.seq(), records);
    }

    public boolean isReply() {
        return (flags & Wire.FLAG_REPLY) != 0;
    }

    public Optional<Record> first(int recordType) {
        for (Record r : records) {
            if (r.type() == recordType) {
                return Optional.of(r);
            }
        }
        return Optional.empty();
    }

    /** The TEXT record, or "" when there is none. */
    public String text() {
        return first(Wire.R_TEXT).map(Record::text).orElse("");
    }

    @Override
    public String toString() {
        return Wire.typeName(type) + (isReply() ? " reply" : "") + " seq=" + Integer.toUnsignedString(seq)
                + (status == 0 ? "" : " status=" + Wire.errnoName(status)) + " records=" + records.size();
    }
}
