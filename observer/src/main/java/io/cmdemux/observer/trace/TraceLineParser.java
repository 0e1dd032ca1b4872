package io.cmdemux.observer.trace;

import io.cmdemux.observer.ReqProbe;

/**
 * Parses ftrace output lines (trace_pipe, or the trace file of an instance) of the events the observer enables.
 * One line in, one typed event out, or a {@link MalformedTraceLineException}; no regular expressions, so that a
 * busy host's event stream costs little. Stateless and thread-safe.
 */
public final class TraceLineParser {
    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final int MAX_LINE = 64 * 1024;

    /** Returns the event of one line, or null for a comment or blank line (the trace file's header). */
    public KernelEvent parse(String line) throws MalformedTraceLineException {
        int n = line.length();
        if (n > MAX_LINE) {
            throw new MalformedTraceLineException(MAX_LINE, "line longer than " + MAX_LINE + " characters");
        }
        int i = skipSpaces(line, 0);
        if (i == n || line.charAt(i) == '#') {
            return null;
        }
        if (line.startsWith("CPU:", i)) {
            return lost(line, i);
        }
        int open = cpuBracket(line, i);
        int dash = open - 1;
        while (dash > i && line.charAt(dash) == ' ') {
            dash--;
        }
        int pidEnd = dash + 1;
        while (dash > i && isDigit(line.charAt(dash))) {
            dash--;
        }
        if (line.charAt(dash) != '-' || dash + 1 == pidEnd) {
            throw new MalformedTraceLineException(dash, "no TASK-PID before the CPU");
        }
        String task = line.substring(i, dash);
        int pid = (int) number(line, dash + 1, pidEnd, 10, "pid");
        int close = line.indexOf(']', open);
        int cpu = (int) number(line, open + 1, close, 10, "cpu");
        int p = skipSpaces(line, close + 1);
        // The latency flags ("d..1.") are there unless the irq-info option is off; the timestamp follows.
        int tokEnd = tokenEnd(line, p);
        if (tokEnd > p && line.charAt(tokEnd - 1) != ':') {
            p = skipSpaces(line, tokEnd);
            tokEnd = tokenEnd(line, p);
        }
        if (tokEnd <= p || line.charAt(tokEnd - 1) != ':') {
            throw new MalformedTraceLineException(p, "no timestamp");
        }
        long ts = timestamp(line, p, tokEnd - 1);
        p = skipSpaces(line, tokEnd);
        int colon = line.indexOf(": ", p);
        int eventEnd = colon < 0 ? (line.endsWith(":") ? n - 1 : -1) : colon;
        if (eventEnd <= p) {
            throw new MalformedTraceLineException(p, "no event name");
        }
        String event = line.substring(p, eventEnd);
        int body = Math.min(n, eventEnd + 2);
        TraceHeader h = new TraceHeader(task, pid, cpu, ts, event);
        return event(h, line, body);
    }

    private static KernelEvent event(TraceHeader h, String line, int body) throws MalformedTraceLineException {
        String event = h.event();
        if (event.endsWith("_ret") && line.startsWith("(", body)) {
            return probeReturn(h, line, body);
        }
        // ib_cm's and rdma_cm's events must have the shape of this kernel's formats: another shape is a format
        // this parser does not know, named as such, never an event with fields guessed.
        if (event.startsWith("icm_")) {
            return icm(h, line, body);
        }
        if (event.startsWith("cm_") || line.startsWith("cm.id=", body)) {
            return cma(h, line, body);
        }
        if (event.equals(ReqProbe.EVENT) && line.startsWith("(" + ReqProbe.FUNCTION, body)) {
            // The line does not name the probe's group: a kprobe of another group with the same name (the lab's
            // cmdemux_check/req) has other fields, and is not ours.
            int close = line.indexOf(')', body);
            if (close > 0 && line.startsWith(" event=", close + 1)) {
                return ProbeFields.req(h, line, body);
            }
        }
        if (event.equals("ib_mad_recv_done_handler") || event.equals("ib_mad_ib_send_mad")) {
            return MadFields.mad(h, line, body);
        }
        return new UnknownEvent(h, line.substring(body));
    }

    private static IcmEvent icm(TraceHeader h, String line, int body) throws MalformedTraceLineException {
        if (!line.startsWith("local_id=", body)) {
            throw new MalformedTraceLineException(body, "unknown format of ib_cm event " + h.event());
        }
        Fields f = new Fields(line, body);
        long local = f.unsigned("local_id");
        long remote = f.unsigned("remote_id");
        String state = f.optionalText("state");
        String reason = f.optionalText("reason");
        return new IcmEvent(h, local, remote, state, reason);
    }

    private static CmaEvent cma(TraceHeader h, String line, int body) throws MalformedTraceLineException {
        if (!line.startsWith("cm.id=", body)) {
            throw new MalformedTraceLineException(body, "unknown format of rdma_cm event " + h.event());
        }
        Fields f = new Fields(line, body);
        int id = (int) f.unsigned("cm.id");
        String src = f.text("src");
        String dst = f.text("dst");
        String device = f.optionalText("device");
        String what = null;
        if (f.optionalText("tos") != null) {
            what = f.bareWord();
        }
        return new CmaEvent(h, id, src, dst, what, device);
    }

    private static ProbeReturn probeReturn(TraceHeader h, String line, int body) throws MalformedTraceLineException {
        int arrow = line.indexOf(" <- ", body);
        int close = arrow < 0 ? -1 : line.indexOf(')', arrow);
        if (close < 0) {
            throw new MalformedTraceLineException(body, "kretprobe without (CALLER <- FUNCTION)");
        }
        String fn = line.substring(arrow + 4, close);
        Fields f = new Fields(line, close + 1);
        return new ProbeReturn(h, fn, f.signed("ret"));
    }

    private static LostEvents lost(String line, int i) throws MalformedTraceLineException {
        int sp = line.indexOf(" [LOST ", i);
        int end = sp < 0 ? -1 : line.indexOf(" EVENTS]", sp);
        if (end < 0) {
            throw new MalformedTraceLineException(i, "CPU: line that is not a lost-events marker");
        }
        int cpu = (int) number(line, i + 4, sp, 10, "cpu");
        return new LostEvents(cpu, number(line, sp + 7, end, 10, "lost count"));
    }

    /** The '[' of " [NNN] " that follows TASK-PID; the task name itself may hold brackets or spaces. */
    private static int cpuBracket(String line, int from) throws MalformedTraceLineException {
        int at = from;
        while (true) {
            int open = line.indexOf('[', at);
            if (open < 0) {
                throw new MalformedTraceLineException(from, "no [CPU] field");
            }
            int j = open + 1;
            while (j < line.length() && isDigit(line.charAt(j))) {
                j++;
            }
            if (j > open + 1 && j < line.length() && line.charAt(j) == ']' && open > from
                    && line.charAt(open - 1) == ' ') {
                return open;
            }
            at = open + 1;
        }
    }

    private static long timestamp(String line, int from, int to) throws MalformedTraceLineException {
        int dot = line.indexOf('.', from);
        if (dot < 0 || dot >= to) {
            return number(line, from, to, 10, "timestamp") * NANOS_PER_SECOND;
        }
        long secs = number(line, from, dot, 10, "timestamp seconds");
        int digits = to - dot - 1;
        if (digits < 1 || digits > 9) {
            throw new MalformedTraceLineException(dot, "timestamp fraction of " + digits + " digits");
        }
        long frac = number(line, dot + 1, to, 10, "timestamp fraction");
        for (int k = digits; k < 9; k++) {
            frac *= 10;
        }
        if (secs > Long.MAX_VALUE / NANOS_PER_SECOND - 1) {
            throw new MalformedTraceLineException(from, "timestamp out of range");
        }
        return secs * NANOS_PER_SECOND + frac;
    }

    static long number(String s, int from, int to, int radix, String what) throws MalformedTraceLineException {
        if (from >= to || to > s.length()) {
            throw new MalformedTraceLineException(from, "empty " + what);
        }
        long v = 0;
        for (int k = from; k < to; k++) {
            int d = Character.digit(s.charAt(k), radix);
            if (d < 0) {
                throw new MalformedTraceLineException(k, "bad digit in " + what);
            }
            if (v > (Long.MAX_VALUE - d) / radix) {
                throw new MalformedTraceLineException(k, what + " out of range");
            }
            v = v * radix + d;
        }
        return v;
    }

    private static int skipSpaces(String s, int i) {
        int k = i;
        while (k < s.length() && s.charAt(k) == ' ') {
            k++;
        }
        return k;
    }

    private static int tokenEnd(String s, int i) {
        int k = i;
        while (k < s.length() && s.charAt(k) != ' ') {
            k++;
        }
        return k;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }
}
