package io.cmdemux.control.protocol;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The CNI message ⇄ records: the thin cmdemux-cni client hands a whole plugin invocation to the
 * daemon and prints what comes back. Decoders check names, counts and lengths like {@link Messages}.
 */
public final class CniMessages {
    /** The variables a CNI_ENV record may carry: the spec's CNI_* parameters only. */
    private static final Pattern CNI_VAR = Pattern.compile("CNI_[A-Z0-9_]{1,60}");
    private static final int MAX_CNI_VARS = 32;

    private CniMessages() {}

    /**
     * CNI: one CNI_ENV record per variable, UTF-8 "NAME=value" (only CNI_* names), then one
     * CNI_STDIN record with the plugin's stdin as it was read.
     */
    public static Frame cniRequest(int seq, Map<String, String> env, byte[] stdin) {
        List<Record> rs = new ArrayList<>();
        for (Map.Entry<String, String> e : new TreeMap<>(env).entrySet()) {
            rs.add(Record.mandatory(Wire.R_CNI_ENV, (e.getKey() + "=" + e.getValue())
                    .getBytes(StandardCharsets.UTF_8)));
        }
        rs.add(Record.mandatory(Wire.R_CNI_STDIN, stdin));
        return Frame.of(Wire.CNI, seq, rs);
    }

    public static CniCall cniCall(Frame f) throws ProtocolException {
        Messages.requireKnown(f, Set.of(Wire.R_CNI_ENV, Wire.R_CNI_STDIN));
        Map<String, String> env = new LinkedHashMap<>();
        for (Record r : f.records()) {
            if (r.type() != Wire.R_CNI_ENV) {
                continue;
            }
            String kv = r.text();
            int eq = kv.indexOf('=');
            String name = eq < 0 ? kv : kv.substring(0, eq);
            if (eq < 0 || !CNI_VAR.matcher(name).matches()) {
                throw new ProtocolException(Wire.EINVAL, "CNI_ENV must be CNI_NAME=value, not '" + printable(kv) + "'");
            }
            if (env.put(name, kv.substring(eq + 1)) != null) {
                throw new ProtocolException(Wire.EINVAL, "CNI_ENV names " + name + " twice");
            }
            if (env.size() > MAX_CNI_VARS) {
                throw new ProtocolException(Wire.EINVAL, "more than " + MAX_CNI_VARS + " CNI_ENV records");
            }
        }
        return new CniCall(env, Messages.required(f, Wire.R_CNI_STDIN, "CNI_STDIN").value());
    }

    /** The reply's records: CNI_RESULT (u8 exit code, 3 bytes reserved, stdout), and CNI_STDERR when there is any. */
    public static List<Record> cniReply(ProgramReply r) {
        return r.records(Wire.R_CNI_RESULT, Wire.R_CNI_STDERR);
    }

    public static ProgramReply cniReply(Frame f) throws ProtocolException {
        return ProgramReply.of(f, Wire.R_CNI_RESULT, "CNI_RESULT", Wire.R_CNI_STDERR);
    }

    private static String printable(String s) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < s.length() && i < 64; i++) {
            char c = s.charAt(i);
            sb.append(c >= 0x20 && c < 0x7f ? c : '?');
        }
        return sb.toString();
    }

}
