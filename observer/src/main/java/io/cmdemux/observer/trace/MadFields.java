package io.cmdemux.observer.trace;

/** ib_mad's "DEV:PORT QP1 ... class 0x07 ... method 0x03 ... tid 0x... attr_id 0x0010" lines. */
final class MadFields {
    private MadFields() {}

    static MadEvent mad(TraceHeader h, String line, int body) throws MalformedTraceLineException {
        int colon = line.indexOf(':', body);
        int space = line.indexOf(' ', body);
        if (colon < 0 || space < 0 || colon > space) {
            throw new MalformedTraceLineException(body, "ib_mad event without DEV:PORT");
        }
        int dev = (int) TraceLineParser.number(line, body, colon, 10, "device index");
        int port = (int) TraceLineParser.number(line, colon + 1, space, 10, "port");
        return new MadEvent(h, dev, port, (int) word(line, body, " class "), (int) word(line, body, " method "),
                (int) word(line, body, " attr_id "), word(line, body, " tid "));
    }

    /** The 0x value after " NAME ": ib_mad prints names and values as separate words. */
    private static long word(String line, int from, String name) throws MalformedTraceLineException {
        int at = line.indexOf(name, from);
        if (at < 0) {
            throw new MalformedTraceLineException(from, "no" + name.stripTrailing());
        }
        int s = at + name.length();
        int e = line.indexOf(' ', s);
        if (e < 0) {
            e = line.length();
        }
        if (e - s < 3 || !line.startsWith("0x", s) || e - s - 2 > 16) {
            throw new MalformedTraceLineException(s, name.strip() + " is not a hex value");
        }
        long v = 0;
        for (int i = s + 2; i < e; i++) {
            int d = Character.digit(line.charAt(i), 16);
            if (d < 0) {
                throw new MalformedTraceLineException(i, "bad hex digit in" + name.stripTrailing());
            }
            v = (v << 4) | d;
        }
        return v;
    }
}
