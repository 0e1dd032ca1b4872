package io.cmdemux.it;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The real cmdemux binary, as a user runs it: java -jar cli/target/cmdemux.jar, in a namespace or not. */
final class Binaries {
    private Binaries() {}

    static Path jar() {
        for (Path p : List.of(Path.of("../cli/target/cmdemux.jar"), Path.of("cli/target/cmdemux.jar"))) {
            if (Files.isRegularFile(p)) {
                return p.toAbsolutePath();
            }
        }
        throw new AssertionError("cli/target/cmdemux.jar is missing: build it first (mvn -pl cli -am package,"
                + " which verify does)");
    }

    /** argv for `cmdemux ARGS`, inside namespace {@code netns} when it is not null. */
    static List<String> cmdemux(String netns, String... args) {
        List<String> argv = new ArrayList<>();
        if (netns != null) {
            argv.addAll(List.of("ip", "netns", "exec", netns));
        }
        argv.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-jar", jar().toString()));
        argv.addAll(List.of(args));
        return argv;
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
