package io.cmdemux.observer.trace;

/** The fields of the cmdemux/req kprobe line, named as ReqProbe defines them. */
final class ProbeFields {
    private static final int GID_BYTES = 16;

    private ProbeFields() {}

    static ReqProbeEvent req(TraceHeader h, String line, int body) throws MalformedTraceLineException {
        int close = line.indexOf(')', body);
        if (close < 0) {
            throw new MalformedTraceLineException(body, "kprobe without (FUNCTION+OFFSET/SIZE)");
        }
        Fields f = new Fields(line, close + 1);
        int event = (int) f.signed("event");
        boolean sidr = event == ReqProbeEvent.IB_CM_SIDR_REQ_RECEIVED;
        if (!sidr && event != ReqProbeEvent.IB_CM_REQ_RECEIVED) {
            throw new MalformedTraceLineException(close + 1,
                    "ib_cm event " + event + " is neither a REQ nor a SIDR REQ");
        }
        // __be32, __be64 and __be16 read as host integers: swapped to the values the wire carries, which is how
        // ib_cm's tracepoints print comm IDs (be32_to_cpu in cm_trace.h).
        long local = Integer.toUnsignedLong(Integer.reverseBytes((int) f.unsigned("local_id")));
        long remote = Integer.toUnsignedLong(Integer.reverseBytes((int) f.unsigned("remote_id")));
        long serviceId = Long.reverseBytes(f.unsigned("service_id"));
        String device = f.quoted("device");
        int port = (int) f.unsigned(sidr ? "sidr_port" : "port");
        long pkey = sidr ? f.unsigned("sidr_pkey")
                : Short.toUnsignedLong(Short.reverseBytes((short) f.unsigned("pkey")));
        byte[] sgid = sidr ? null : gid(f, "sgid");
        byte[] dgid = sidr ? null : gid(f, "dgid");
        byte[] cma = f.bytes("cma");
        // Recordings made before the probe read the matched GID entry have no such field.
        String gidKey = sidr ? "sidr_gid_index" : "gid_index";
        int gidIndex = f.has(gidKey) ? (int) (f.unsigned(gidKey) & 0xffff) : ReqProbeEvent.NO_GID_INDEX;
        return new ReqProbeEvent(h, event, local, remote, serviceId, device, port, (int) (pkey & 0xffff), sgid, dgid,
                cma, gidIndex);
    }

    private static byte[] gid(Fields f, String key) throws MalformedTraceLineException {
        byte[] g = f.bytes(key);
        if (g.length != GID_BYTES) {
            throw new MalformedTraceLineException(0, key + " has " + g.length + " bytes, not " + GID_BYTES);
        }
        return g;
    }
}
