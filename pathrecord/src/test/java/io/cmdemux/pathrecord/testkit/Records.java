package io.cmdemux.pathrecord.testkit;

import io.cmdemux.gid.Gid;
import io.cmdemux.pathrecord.PathRecord;

/** Path records with a distinct value in every field, so that a misplaced bit shows. */
public final class Records {
    public static final Gid SGID = Gid.parse("fe80::2:c903:0:1");
    public static final Gid DGID = Gid.parse("fe80::2:c903:0:77");

    private Records() {}

    public static PathRecord sample(int dlid, int sl) {
        return new PathRecord(0x0000000001067000L | dlid, DGID, SGID, dlid, 0x0123, false, 0x12345, 7, 0xa0, true, 1,
                0x8001, 0x5a5, sl, 2, 4, 2, 7, 2, 18, 3);
    }
}
