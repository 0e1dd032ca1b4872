package io.cmdemux.cni;

import java.util.List;

/**
 * The CNI spec versions this plugin implements. 0.4.0 brought CHECK and prevResult on DEL, 1.0.0
 * dropped the ips' "version" field, 1.1.0 added STATUS and GC; the result format is otherwise the
 * same, and a chained plugin passes it through untouched.
 */
public final class CniVersions {
    public static final String V0_4_0 = "0.4.0";
    public static final String V1_0_0 = "1.0.0";
    public static final String V1_1_0 = "1.1.0";
    public static final List<String> SUPPORTED = List.of(V0_4_0, V1_0_0, V1_1_0);
    public static final String LATEST = V1_1_0;

    private CniVersions() {}

    public static boolean supported(String v) {
        return SUPPORTED.contains(v);
    }

    /** STATUS and GC exist from 1.1.0 on. */
    public static boolean hasStatusAndGc(String v) {
        return compare(v, V1_1_0) >= 0;
    }

    /** Compares dotted versions numerically; anything unparsable sorts first. */
    static int compare(String a, String b) {
        int[] x = parts(a);
        int[] y = parts(b);
        for (int i = 0; i < 3; i++) {
            if (x[i] != y[i]) {
                return Integer.compare(x[i], y[i]);
            }
        }
        return 0;
    }

    private static int[] parts(String v) {
        int[] out = {-1, -1, -1};
        if (v == null) {
            return out;
        }
        String[] p = v.split("\\.", -1);
        for (int i = 0; i < Math.min(3, p.length); i++) {
            try {
                out[i] = Integer.parseInt(p[i]);
            } catch (NumberFormatException e) {
                return new int[] {-1, -1, -1};
            }
        }
        return out;
    }
}
