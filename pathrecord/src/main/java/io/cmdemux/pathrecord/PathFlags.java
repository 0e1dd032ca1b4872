package io.cmdemux.pathrecord;

import java.util.ArrayList;
import java.util.List;

/**
 * The flags of {@code struct ib_path_rec_data} (rdma/ib_user_sa.h): what one path record in a
 * reply is for. The seed's six APM paths are PRIMARY or ALTERNATE, each as GMP (bidirectional),
 * OUTBOUND (forward) or INBOUND (return).
 */
public final class PathFlags {
    // rdma/ib_user_sa.h
    public static final int GMP = 1;
    public static final int PRIMARY = 1 << 1;
    public static final int ALTERNATE = 1 << 2;
    public static final int OUTBOUND = 1 << 3;
    public static final int INBOUND = 1 << 4;
    public static final int INBOUND_REVERSE = 1 << 5;
    public static final int BIDIRECTIONAL = OUTBOUND | INBOUND_REVERSE;

    private static final String[] NAMES = {"GMP", "PRIMARY", "ALTERNATE", "OUTBOUND", "INBOUND", "INBOUND_REVERSE"};

    private PathFlags() {}

    /** The set bits by their ib_user_sa.h names, lowest first; unknown bits as hex. */
    public static List<String> names(int flags) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < NAMES.length; i++) {
            if ((flags & (1 << i)) != 0) {
                out.add(NAMES[i]);
            }
        }
        int unknown = flags & ~((1 << NAMES.length) - 1);
        if (unknown != 0) {
            out.add("0x" + Integer.toHexString(unknown));
        }
        return out;
    }

    public static int parse(String name) {
        for (int i = 0; i < NAMES.length; i++) {
            if (NAMES[i].equalsIgnoreCase(name)) {
                return 1 << i;
            }
        }
        if (name.equalsIgnoreCase("BIDIRECTIONAL")) {
            return BIDIRECTIONAL;
        }
        throw new IllegalArgumentException("unknown path flag " + name);
    }
}
