package io.cmdemux.ingress.oracle;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs an oracle program. A missing program fails the test and names the Debian package to install. */
public final class ExternalTool {
    private ExternalTool() {}

    /** The program's path; fails (never skips) when it is not installed. */
    public static Path require(String program, String debianPackage) {
        for (String dir : List.of("/usr/bin", "/usr/local/bin", "/bin")) {
            Path p = Path.of(dir, program);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        throw new AssertionError(program + " is not installed: this test needs the Debian package '" + debianPackage
                + "' (apt-get install -y " + debianPackage + "; .ci/run installs it)");
    }

    /** Runs a command and returns its stdout; fails on a non-zero exit or after 120 s. */
    public static String run(List<String> command) throws IOException, InterruptedException {
        Path err = Files.createTempFile("oracle", ".err");
        try {
            Process p = new ProcessBuilder(command).redirectError(err.toFile()).start();
            p.getOutputStream().close();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError(command.get(0) + " did not finish in 120 s");
            }
            if (p.exitValue() != 0) {
                throw new AssertionError(
                        String.join(" ", command) + " exited " + p.exitValue() + ": " + Files.readString(err));
            }
            return new String(out, StandardCharsets.UTF_8);
        } finally {
            Files.deleteIfExists(err);
        }
    }

    /** Runs a command; null when it exits 0, else its stderr. */
    static String runAllowingFailure(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return command.get(0) + " did not finish in 120 s";
        }
        return p.exitValue() == 0 ? null : new String(out, StandardCharsets.UTF_8).strip();
    }

    static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
