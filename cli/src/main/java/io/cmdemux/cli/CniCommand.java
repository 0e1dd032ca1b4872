package io.cmdemux.cli;

import io.cmdemux.cni.CniOutcome;
import io.cmdemux.cni.CniPlugin;
import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

@Command(name = "cni", mixinStandardHelpOptions = true,
        description = {"The cmdemux-cni plugin run in this JVM: reads one CNI request as a runtime sends it"
                + " (CNI_* environment, the",
                "configuration on stdin) and answers it on stdout with the CNI exit code."
                + " The installed cmdemux-cni executable",
                "hands requests to the running daemon and runs this only when the daemon cannot be reached."})
final class CniCommand implements Callable<Integer> {
    /** Configurations with prevResult are a few KiB; anything near this is not one. */
    private static final int MAX_STDIN = 16 << 20;

    @Override
    public Integer call() {
        Map<String, String> env = new TreeMap<>();
        System.getenv().forEach((k, v) -> {
            if (k.startsWith("CNI_")) {
                env.put(k, v);
            }
        });
        byte[] stdin;
        try {
            stdin = read(System.in);
        } catch (IOException e) {
            stdin = new byte[0]; // answered as "no network configuration on stdin" (decode failure)
        }
        CniOutcome o;
        try {
            o = CniPlugin.standalone().run(env, stdin);
        } catch (IOException e) {
            String msg = "{\"cniVersion\":\"1.1.0\",\"code\":5,\"msg\":\"cannot identify the host namespace\","
                    + "\"details\":\"" + jsonText(e.getMessage()) + "\"}\n";
            o = new CniOutcome(1, msg.getBytes(java.nio.charset.StandardCharsets.UTF_8), "");
        }
        // The runtime parses these bytes as the CNI result: they go out as CniPlugin made them, not
        // through a writer's charset.
        System.out.write(o.stdout(), 0, o.stdout().length);
        System.out.flush();
        if (!o.stderr().isEmpty()) {
            System.err.print(o.stderr());
            System.err.flush();
        }
        return o.exitCode();
    }

    private static byte[] read(InputStream in) throws IOException {
        byte[] b = in.readNBytes(MAX_STDIN + 1);
        if (b.length > MAX_STDIN) {
            throw new IOException("more than " + MAX_STDIN + " bytes on stdin");
        }
        return b;
    }

    private static String jsonText(String s) {
        return String.valueOf(s).replace("\\", "\\\\").replace("\"", "\\\"");
    }
}
