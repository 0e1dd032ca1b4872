package io.cmdemux.observer.trace;

/**
 * The "key=value" words of an event's text, in order, with the words that have no '=' beside them. A value that
 * starts with '"' runs to the closing quote, one that starts with '{' (a kprobe array) to the closing brace.
 */
final class Fields {
    private static final int MAX_WORDS = 64;

    private final String line;
    private final int[] keyStart = new int[MAX_WORDS];
    private final int[] keyEnd = new int[MAX_WORDS];
    private final int[] valueStart = new int[MAX_WORDS];
    private final int[] valueEnd = new int[MAX_WORDS];
    private final int count;
    private int bare;

    Fields(String line, int from) throws MalformedTraceLineException {
        this.line = line;
        int n = line.length();
        int i = from;
        int c = 0;
        while (i < n) {
            while (i < n && line.charAt(i) == ' ') {
                i++;
            }
            if (i == n) {
                break;
            }
            if (c == MAX_WORDS) {
                throw new MalformedTraceLineException(i, "more than " + MAX_WORDS + " words");
            }
            int start = i;
            int eq = -1;
            while (i < n && line.charAt(i) != ' ') {
                if (line.charAt(i) == '=' && eq < 0) {
                    eq = i;
                    if (i + 1 < n && (line.charAt(i + 1) == '"' || line.charAt(i + 1) == '{')) {
                        char closer = line.charAt(i + 1) == '"' ? '"' : '}';
                        int end = line.indexOf(closer, i + 2);
                        if (end < 0) {
                            throw new MalformedTraceLineException(i + 1, "unterminated value");
                        }
                        i = end;
                    }
                }
                i++;
            }
            keyStart[c] = start;
            keyEnd[c] = eq < 0 ? start : eq;
            valueStart[c] = eq < 0 ? start : eq + 1;
            valueEnd[c] = i;
            c++;
        }
        this.count = c;
    }

    private int find(String key) {
        for (int k = 0; k < count; k++) {
            if (keyEnd[k] - keyStart[k] == key.length() && line.regionMatches(keyStart[k], key, 0, key.length())) {
                return k;
            }
        }
        return -1;
    }

    private int require(String key) throws MalformedTraceLineException {
        int k = find(key);
        if (k < 0) {
            throw new MalformedTraceLineException(count == 0 ? 0 : keyStart[0], "no field " + key);
        }
        return k;
    }

    String text(String key) throws MalformedTraceLineException {
        int k = require(key);
        return line.substring(valueStart[k], valueEnd[k]);
    }

    boolean has(String key) {
        return find(key) >= 0;
    }

    String optionalText(String key) {
        int k = find(key);
        return k < 0 ? null : line.substring(valueStart[k], valueEnd[k]);
    }

    /** A quoted string's content ("rxe0" as the kprobe's string type prints it). */
    String quoted(String key) throws MalformedTraceLineException {
        int k = require(key);
        int s = valueStart[k];
        int e = valueEnd[k];
        if (e - s < 2 || line.charAt(s) != '"' || line.charAt(e - 1) != '"') {
            throw new MalformedTraceLineException(s, key + " is not a quoted string");
        }
        return line.substring(s + 1, e - 1);
    }

    /** A decimal or 0x-hex value that fits in 64 bits, unsigned. */
    long unsigned(String key) throws MalformedTraceLineException {
        int k = require(key);
        return unsignedAt(valueStart[k], valueEnd[k], key);
    }

    long signed(String key) throws MalformedTraceLineException {
        int k = require(key);
        int s = valueStart[k];
        if (s < valueEnd[k] && line.charAt(s) == '-') {
            return -unsignedAt(s + 1, valueEnd[k], key);
        }
        return unsignedAt(s, valueEnd[k], key);
    }

    private long unsignedAt(int s, int e, String key) throws MalformedTraceLineException {
        if (e - s > 2 && line.charAt(s) == '0' && (line.charAt(s + 1) == 'x' || line.charAt(s + 1) == 'X')) {
            if (e - s - 2 > 16) {
                throw new MalformedTraceLineException(s, key + " wider than 64 bits");
            }
            long v = 0;
            for (int i = s + 2; i < e; i++) {
                int d = Character.digit(line.charAt(i), 16);
                if (d < 0) {
                    throw new MalformedTraceLineException(i, "bad hex digit in " + key);
                }
                v = (v << 4) | d;
            }
            return v;
        }
        return TraceLineParser.number(line, s, e, 10, key);
    }

    /** A kprobe array "{0x1,0x2,...}" of byte-wide values. */
    byte[] bytes(String key) throws MalformedTraceLineException {
        int k = require(key);
        int s = valueStart[k];
        int e = valueEnd[k];
        if (e - s < 2 || line.charAt(s) != '{' || line.charAt(e - 1) != '}') {
            throw new MalformedTraceLineException(s, key + " is not an array");
        }
        byte[] out = new byte[64];
        int n = 0;
        int i = s + 1;
        while (i < e - 1) {
            int comma = line.indexOf(',', i);
            int end = comma < 0 || comma > e - 1 ? e - 1 : comma;
            if (n == out.length) {
                throw new MalformedTraceLineException(i, key + " has more than " + out.length + " elements");
            }
            long v = unsignedAt(i, end, key);
            if (v > 0xff) {
                throw new MalformedTraceLineException(i, key + " element wider than a byte");
            }
            out[n++] = (byte) v;
            i = end + 1;
        }
        byte[] exact = new byte[n];
        System.arraycopy(out, 0, exact, 0, n);
        return exact;
    }

    /** The next word without '=' (rdma_cma's event name after the addresses), or null. */
    String bareWord() {
        for (int k = bare; k < count; k++) {
            if (keyEnd[k] == keyStart[k]) {
                bare = k + 1;
                return line.substring(valueStart[k], valueEnd[k]);
            }
        }
        return null;
    }
}
