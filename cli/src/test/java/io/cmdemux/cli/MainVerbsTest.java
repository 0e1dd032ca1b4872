package io.cmdemux.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Main builds only the verb it is asked for (issue 22): every verb must still be reachable, listed in
 * the help, and found when mistyped, as when picocli built them all.
 */
class MainVerbsTest {
    @Test
    void everyCommandClassOfThePackageIsAVerb() throws IOException {
        // the oracle is the source tree, not the list under test: a new *Command with a name is a verb
        Pattern name = Pattern.compile("@Command\\(name = \"([a-z-]+)\"");
        List<String> declared = new ArrayList<>();
        try (Stream<Path> files = Files.list(Path.of("src/main/java/io/cmdemux/cli"))) {
            for (Path f : files.filter(p -> p.toString().endsWith("Command.java")).toList()) {
                Matcher m = name.matcher(Files.readString(f));
                if (m.find()) {
                    declared.add(m.group(1));
                }
            }
        }
        assertThat(Main.VERBS.keySet()).containsExactlyInAnyOrderElementsOf(declared);
    }

    @Test
    void eachVerbIsNamedAsItsClassNamesItself() {
        Main.VERBS.forEach((verb, cls) -> assertThat(cls.getAnnotation(picocli.CommandLine.Command.class).name())
                .as(cls.getSimpleName()).isEqualTo(verb));
    }

    @Test
    void theHelpListsEveryVerbInOrder() {
        Cli.Result r = Cli.run("--help");
        assertThat(r.exit()).isZero();
        List<Integer> at = new ArrayList<>();
        for (String verb : Main.VERBS.keySet()) {
            Matcher m = Pattern.compile("(?m)^\\s+" + Pattern.quote(verb) + "\\s").matcher(r.out());
            assertThat(m.find()).as("`cmdemux --help` lists %s:%n%s", verb, r.out()).isTrue();
            at.add(m.start());
        }
        assertThat(at).isSorted();
    }

    @Test
    void eachVerbAnswersItsOwnHelp() {
        for (String verb : Main.VERBS.keySet()) {
            Cli.Result r = Cli.run(verb, "--help");
            assertThat(r.exit()).as(verb).isZero();
            assertThat(r.out()).as(verb).startsWith("Usage: cmdemux " + verb + " ");
        }
    }

    @Test
    void aMistypedVerbIsAUsageErrorThatSuggestsTheVerb() {
        Cli.Result r = Cli.run("topolgy");
        assertThat(r.exit()).isEqualTo(ExitCode.USAGE);
        assertThat(r.err()).contains("topolgy").contains("topology");
    }
}
