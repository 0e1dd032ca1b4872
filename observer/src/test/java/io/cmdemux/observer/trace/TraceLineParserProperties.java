package io.cmdemux.observer.trace;

import io.cmdemux.observer.LabFixtures;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** Mutated real lines (cut, a character replaced, a run inserted) give an event or a typed error, nothing else. */
class TraceLineParserProperties {
    private static final List<String> LINES = realLines();

    private static List<String> realLines() {
        try {
            List<String> out = new ArrayList<>();
            for (Path d : LabFixtures.withTrace()) {
                for (String l : Files.readAllLines(d.resolve("tracefs/trace.txt"), StandardCharsets.US_ASCII)) {
                    if (!l.startsWith("#")) {
                        out.add(l);
                    }
                }
            }
            return out;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Provide
    Arbitrary<String> mutated() {
        Arbitrary<String> line = Arbitraries.of(LINES);
        Arbitrary<Character> ch = Arbitraries.chars().with(' ', '=', '{', '}', '"', '[', ']', ':', '-', '.', ',', '(')
                .ascii();
        return net.jqwik.api.Combinators.combine(line, Arbitraries.integers().between(0, 400), ch,
                Arbitraries.integers().between(0, 2)).as((l, at, c, how) -> {
                    int i = Math.min(at, l.length());
                    switch (how) {
                        case 0:
                            return l.substring(0, i);
                        case 1:
                            return i < l.length() ? l.substring(0, i) + c + l.substring(i + 1) : l + c;
                        default:
                            return l.substring(0, i) + String.valueOf(c).repeat(3) + l.substring(i);
                    }
                });
    }

    @Property(tries = 20000)
    void aMutatedLineIsAnEventOrMalformed(@ForAll("mutated") String line) {
        try {
            new TraceLineParser().parse(line);
        } catch (MalformedTraceLineException e) {
            if (e.column() < 0 || e.column() > line.length() + 1) {
                throw new AssertionError("column " + e.column() + " outside a line of " + line.length(), e);
            }
        }
    }
}
