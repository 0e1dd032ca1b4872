package io.cmdemux.observer;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.zip.GZIPInputStream;

/**
 * The running kernel's build options, from /proc/config.gz (CONFIG_IKCONFIG_PROC) or /boot/config-RELEASE: what
 * tells "not loaded" from "not built", and answers for kprobe events while tracefs is not mounted.
 */
public final class KernelConfig {
    private final Map<String, String> options;
    private final String source;

    private KernelConfig(Map<String, String> options, String source) {
        this.options = Map.copyOf(options);
        this.source = source;
    }

    /** The first readable config of the candidates, or empty when the kernel publishes none. */
    public static Optional<KernelConfig> read(Path procConfigGz, Path bootConfig) {
        try {
            if (Files.isReadable(procConfigGz)) {
                try (InputStream in = new GZIPInputStream(Files.newInputStream(procConfigGz))) {
                    return Optional.of(parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), procConfigGz));
                }
            }
            if (bootConfig != null && Files.isReadable(bootConfig)) {
                return Optional.of(parse(Files.readString(bootConfig, StandardCharsets.UTF_8), bootConfig));
            }
        } catch (IOException e) {
            return Optional.empty();
        }
        return Optional.empty();
    }

    public static Optional<KernelConfig> host() {
        String release = System.getProperty("os.version", "");
        return read(Path.of("/proc/config.gz"), Path.of("/boot/config-" + release));
    }

    private static KernelConfig parse(String text, Path from) {
        Map<String, String> m = new HashMap<>();
        for (String line : text.split("\n")) {
            int eq = line.indexOf('=');
            if (line.startsWith("CONFIG_") && eq > 0) {
                m.put(line.substring(0, eq), line.substring(eq + 1).trim());
            }
        }
        return new KernelConfig(m, from.toString());
    }

    /** True for =y or =m; false for "is not set" and for options this kernel does not know. */
    public boolean enabled(String option) {
        String v = options.get(option);
        return "y".equals(v) || "m".equals(v);
    }

    public String source() {
        return source;
    }
}
