package io.cmdemux.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/** docs/SERVE.md lists every setting of `serve`, once, with the name the config file uses for it, and nothing else. */
class ServeSettingsDocTest {
    private static final Pattern ROW = Pattern.compile("^\\| `(--[a-z-]+)[^`]*` \\| (`([a-z-]+)`|\\(none\\)) \\|",
            Pattern.MULTILINE);

    @Test
    void everyOptionHasOneRowAndItsFileNameIsTheOptionWithoutDashes() throws Exception {
        String doc = Files.readString(Path.of("../docs/SERVE.md"));
        Map<String, String> rows = new TreeMap<>();
        Matcher m = ROW.matcher(doc);
        while (m.find()) {
            assertThat(rows.put(m.group(1), m.group(3) == null ? "" : m.group(3)))
                    .as("%s listed twice", m.group(1)).isNull();
        }
        Map<String, String> options = new TreeMap<>();
        for (OptionSpec o : new CommandLine(new ServeCommand((out, err, args) -> 0)).getCommandSpec().options()) {
            String name = o.longestName();
            if (!name.equals("--help") && !name.equals("--version")) {
                options.put(name, name.equals("--config") ? "" : name.substring(2));
            }
        }
        assertThat(rows).isEqualTo(options);
    }
}
