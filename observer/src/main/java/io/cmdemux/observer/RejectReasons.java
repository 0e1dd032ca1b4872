package io.cmdemux.observer;

import java.util.HashMap;
import java.util.Map;

/**
 * The kernel's names for REJ reasons (enum ib_cm_rej_reason), read from icm_send_rej's format file, whose print
 * fmt maps each number to the name the event prints: the names come from the running kernel, not from us.
 */
public final class RejectReasons {
    private final Map<String, Integer> byName;

    private RejectReasons(Map<String, Integer> byName) {
        this.byName = Map.copyOf(byName);
    }

    /** Parses the {@code __print_symbolic(REC->reason, { 1, "REJ_NO_QP" }, ...)} of a format file. */
    public static RejectReasons fromFormat(String format) {
        Map<String, Integer> m = new HashMap<>();
        int at = format.indexOf("__print_symbolic(REC->reason");
        if (at >= 0) {
            int end = format.indexOf(')', at);
            String table = format.substring(at, end < 0 ? format.length() : end);
            int i = 0;
            while ((i = table.indexOf('{', i)) >= 0) {
                int close = table.indexOf('}', i);
                if (close < 0) {
                    break;
                }
                String[] kv = table.substring(i + 1, close).split(",", 2);
                if (kv.length == 2) {
                    String name = kv[1].trim();
                    if (name.length() >= 2 && name.startsWith("\"") && name.endsWith("\"")) {
                        try {
                            m.put(name.substring(1, name.length() - 1), Integer.parseInt(kv[0].trim()));
                        } catch (NumberFormatException e) {
                            // a value that is an expression, not a number: that entry stays unknown
                            m.remove(name);
                        }
                    }
                }
                i = close + 1;
            }
        }
        return new RejectReasons(m);
    }

    /** The number for a name, or -1 when the format did not name it. */
    public int number(String name) {
        return name == null ? -1 : byName.getOrDefault(name, -1); // a line without a reason names none
    }

    public int size() {
        return byName.size();
    }
}
