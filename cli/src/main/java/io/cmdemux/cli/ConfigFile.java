package io.cmdemux.cli;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.PropertiesDefaultProvider;

/**
 * A command's options from a file: one "name = value" line per option, named as its long option without
 * the dashes (`control-socket-group = rdma`), so that the file and `--help` use the same words. The
 * command line wins over the file. A name that is no option of the command is an error, not a setting
 * quietly ignored: a typo in a root daemon's configuration must not go unseen.
 */
final class ConfigFile {
    private ConfigFile() {}

    /** picocli's defaults from {@code file}, after checking every name in it against {@code command}'s options. */
    static PropertiesDefaultProvider defaults(Path file, CommandSpec command, Set<String> notSettable) {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        } catch (NoSuchFileException e) {
            throw new EnvironmentException("--config " + file + ": no such file", e);
        } catch (IOException | IllegalArgumentException e) {
            throw new EnvironmentException("--config " + file + ": " + e.getMessage(), e);
        }
        Set<String> known = new TreeSet<>();
        for (OptionSpec o : command.options()) {
            String name = o.longestName().replaceFirst("^-+", "");
            if (o.longestName().startsWith("--") && !notSettable.contains(name)) {
                known.add(name);
            }
        }
        for (String key : p.stringPropertyNames()) {
            if (!known.contains(key)) {
                throw new IllegalArgumentException("--config " + file + ": '" + key + "' is no setting of "
                        + command.name() + " (the settings are its long options without the dashes: "
                        + String.join(", ", known) + ")");
            }
        }
        return new PropertiesDefaultProvider(p);
    }
}
