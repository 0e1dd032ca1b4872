package io.cmdemux.cni;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import io.cmdemux.control.protocol.QueryArgs;
import io.cmdemux.control.protocol.RequestRefused;
import io.cmdemux.netdev.testkit.DecoderContract;
import io.cmdemux.pods.PodJson;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Jazzer fuzz target for what a container runtime hands cmdemux-cni, and what the daemon reads from
 * it (issue 20 §1): the CNI_* environment with CNI_ARGS, the stdin configuration with its prevResult,
 * and the same bytes as a POD_REGISTER document. Every reader returns or throws its typed error: a
 * CniError with a CNI code (never an unchecked exception, which the plugin would report as code 999),
 * RequestRefused for the JSON parse, IllegalArgumentException for a registration. The committed inputs
 * are in CniInputJazzerTestInputs/.
 */
class CniInputJazzerTest {
    private static final DecoderContract.Budget BUDGET = new DecoderContract.Budget(64 << 10, 64);

    /**
     * The input is the environment, one NAME=value per line, then a NUL, then stdin; so that the seeds
     * are the runtime's own words, readable as they are.
     */
    @FuzzTest
    void anyEnvironmentAndStdinGiveAConfigurationOrACniError(byte[] input) throws Exception {
        int nul = 0;
        while (nul < input.length && input[nul] != 0) {
            nul++;
        }
        Map<String, String> env = new HashMap<>();
        for (String line : new String(input, 0, nul, StandardCharsets.UTF_8).split("\n", -1)) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                env.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        byte[] stdin = Arrays.copyOfRange(input, Math.min(nul + 1, input.length), input.length);
        long size = input.length;
        check(size, () -> CniEnv.parse(env));
        check(size, () -> CniArgs.parse(env.getOrDefault("CNI_ARGS", "")));
        DecoderContract.check(size, BUDGET, () -> CniConfig.versionOf(stdin)); // null when none can be read
        for (boolean forDelete : new boolean[] {false, true}) {
            CniConfig[] config = new CniConfig[1];
            if (check(size, () -> config[0] = CniConfig.parse(stdin, forDelete)) == null
                    && config[0].prevResult() != null) {
                check(size, () -> PrevResult.sandboxInterfaces(config[0].prevResult()));
            }
        }
        JsonNode[] doc = new JsonNode[1];
        if (DecoderContract.check(size, BUDGET, () -> doc[0] = QueryArgs.parse(stdin), RequestRefused.class) == null) {
            DecoderContract.check(size, BUDGET, () -> PodJson.registration(doc[0]), IllegalArgumentException.class);
        }
    }

    private static Exception check(long size, DecoderContract.Decode decode) throws Exception {
        Exception e = DecoderContract.check(size, BUDGET, decode, CniError.class);
        if (e != null) {
            assertThat(((CniError) e).code()).isPositive();
        }
        return e;
    }
}
