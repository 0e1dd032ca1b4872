package io.cmdemux.bench;

import io.cmdemux.observer.trace.KernelEvent;
import io.cmdemux.observer.trace.MalformedTraceLineException;
import io.cmdemux.observer.trace.TraceLineParser;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Issue 18's goal: the observer parses the kernel's event stream at 1M events/s or more. The events are the
 * lab recordings' lines (it/fixtures/lab/STAR/tracefs/trace.txt, every kind the observer reads), repeated to
 * LINES; the baseline reads the same text line by line without parsing, in the same run.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class TraceLineParserBench {
    static final int LINES = 10_000;
    private final TraceLineParser parser = new TraceLineParser();
    private String text;

    @Setup
    public void setup() throws IOException {
        Path lab = Path.of(System.getProperty("cmdemux.lab", "it/fixtures/lab"));
        List<String> real = new ArrayList<>();
        try (Stream<Path> dirs = Files.list(lab)) {
            for (Path d : dirs.sorted().toList()) {
                Path t = d.resolve("tracefs/trace.txt");
                if (Files.isRegularFile(t)) {
                    Files.readAllLines(t, StandardCharsets.US_ASCII).stream().filter(l -> !l.startsWith("#"))
                            .forEach(real::add);
                }
            }
        }
        if (real.isEmpty()) {
            throw new IllegalStateException("no trace.txt under " + lab.toAbsolutePath() + " (-Dcmdemux.lab=DIR)");
        }
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < LINES; i++) {
            b.append(real.get(i % real.size())).append('\n');
        }
        text = b.toString();
    }

    @Benchmark
    @OperationsPerInvocation(LINES)
    public void readLinesOnly(Blackhole bh) throws IOException {
        BufferedReader r = new BufferedReader(new StringReader(text));
        for (String l = r.readLine(); l != null; l = r.readLine()) {
            bh.consume(l);
        }
    }

    @Benchmark
    @OperationsPerInvocation(LINES)
    public void readAndParse(Blackhole bh) throws IOException {
        BufferedReader r = new BufferedReader(new StringReader(text));
        for (String l = r.readLine(); l != null; l = r.readLine()) {
            try {
                KernelEvent e = parser.parse(l);
                bh.consume(e);
            } catch (MalformedTraceLineException e) {
                bh.consume(e);
            }
        }
    }
}
