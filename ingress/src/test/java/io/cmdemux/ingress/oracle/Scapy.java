package io.cmdemux.ingress.oracle;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** scapy (Debian python3-scapy, run by the system /usr/bin/python3) as a second RoCEv2 encoder. */
public final class Scapy {
    private Scapy() {}

    /** Runs a Python script with arguments under /usr/bin/python3 and returns its stdout. */
    public static String runScript(String script, List<String> args) throws IOException, InterruptedException {
        Path python = ExternalTool.require("python3", "python3-scapy");
        String probe = ExternalTool.runAllowingFailure(List.of(python.toString(), "-c", "import scapy.contrib.roce"));
        if (probe != null) {
            throw new AssertionError("scapy is not importable by " + python + ": this test needs the Debian package "
                    + "'python3-scapy' (apt-get install -y python3-scapy; .ci/run installs it): " + probe);
        }
        Path file = Files.createTempFile("scapy-oracle", ".py");
        try {
            Files.writeString(file, script);
            return ExternalTool.run(ExternalTool.concat(List.of(python.toString(), file.toString()), args));
        } finally {
            Files.deleteIfExists(file);
        }
    }
}
