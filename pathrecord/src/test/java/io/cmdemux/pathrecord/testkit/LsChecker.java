package io.cmdemux.pathrecord.testkit;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * src/test/c/ls_check.c: what the kernel would do with our replies (sa_query.c
 * ib_nl_handle_resolve_resp and friends, cma.c cma_query_handler), as key=value maps.
 */
public final class LsChecker {
    private LsChecker() {}

    /** One message to judge: mode resolve/ip/timeout, the query's path_use (resolve), the seq the kernel waits for. */
    public record Input(String mode, int pathUse, int seq, byte[] bytes) {}

    public static List<Map<String, String>> check(List<Input> inputs) {
        StringBuilder in = new StringBuilder();
        for (Input i : inputs) {
            in.append(i.mode())
                    .append(' ')
                    .append(i.pathUse())
                    .append(' ')
                    .append(Integer.toUnsignedString(i.seq()))
                    .append(' ')
                    .append(HexFormat.of().formatHex(i.bytes()))
                    .append('\n');
        }
        CPrograms.Result r = CPrograms.run(List.of(CPrograms.build("ls_check").toString()), in.toString(), "ls_check");
        if (r.exit() != 0) {
            throw new AssertionError("ls_check exited " + r.exit() + ": " + r.stderr());
        }
        List<Map<String, String>> out = new ArrayList<>();
        for (String l : CPrograms.lines(r.stdout())) {
            out.add(CPrograms.keyValues(l));
        }
        if (out.size() != inputs.size()) {
            throw new AssertionError(
                    "ls_check answered " + out.size() + " lines for " + inputs.size() + " messages:\n" + r.stdout());
        }
        return out;
    }

    public static Map<String, String> check(Input one) {
        return check(List.of(one)).get(0);
    }
}
