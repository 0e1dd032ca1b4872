package io.cmdemux.pathrecord;

import java.util.Objects;

/**
 * One {@code struct ib_path_rec_data} (rdma/ib_user_sa.h): u32 flags (host order), u32 reserved,
 * then the 64-byte SA PathRecord wire image; 72 bytes, the payload of one LS_NLA_TYPE_PATH_RECORD.
 */
public record PathRecordData(int flags, PathRecord record) {
    public static final int SIZE = 8 + PathRecord.WIRE_SIZE;

    public PathRecordData {
        Objects.requireNonNull(record, "record");
    }
}
