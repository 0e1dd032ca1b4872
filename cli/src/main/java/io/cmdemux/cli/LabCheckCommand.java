package io.cmdemux.cli;

import io.cmdemux.ingress.resolve.HostState;
import io.cmdemux.observer.LabRecording;
import io.cmdemux.observer.Prediction;
import io.cmdemux.ingress.resolve.ResolverMode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

@Command(name = "lab-check", mixinStandardHelpOptions = true,
        description = {"Replays kernel-lab fixture directories in kernel mode and compares every request with what"
                + " the real",
                "kernel did (expected.tsv). Prints one row per scenario; exit 1 on any disagreement."})
final class LabCheckCommand implements Callable<Integer> {
    @Mixin
    Terminal terminal = new Terminal();

    @Parameters(paramLabel = "DIR", arity = "1..*",
            description = "fixture directories (netns.tsv, rtnl/, sysfs/, listeners.tsv, cm.pcap, expected.tsv)")
    List<Path> dirs;

    /** One scenario's comparison; documented differences are listed in known-differences.tsv beside the fixtures. */
    record Result(String scenario, int requests, int agreements, List<String> documented, List<String> disagreements) {}

    @Override
    public Integer call() {
        int bad = 0;
        terminal.out().printf("%-36s %8s %10s %10s%n", "SCENARIO", "REQUESTS", "AGREEMENTS", "DOCUMENTED");
        for (Path d : dirs) {
            Result r = check(d, terminal.err());
            terminal.out().printf("%-36s %8d %10d %10d%n", r.scenario(), r.requests(), r.agreements(),
                    r.documented().size());
            for (String s : r.documented()) {
                terminal.out().println("    documented: " + s);
            }
            for (String s : r.disagreements()) {
                terminal.out().println("    DISAGREES: " + s);
            }
            bad += r.disagreements().size();
        }
        return bad == 0 ? ExitCode.OK : ExitCode.NO;
    }

    /** The expected outcomes of a fixture, by local comm ID, in file order. */
    static Map<String, String> expected(Path dir) {
        try {
            return new LabRecording(dir).expected();
        } catch (IOException e) {
            throw new EnvironmentException(dir + "/expected.tsv: " + e.getMessage(), e);
        }
    }

    static Result check(Path dir, java.io.PrintWriter warnings) {
        ResolveOptions o = new ResolveOptions();
        o.lab = dir;
        HostState state = o.load(warnings);
        Map<String, String> want = expected(dir);
        Map<String, String> got = new LinkedHashMap<>();
        for (ReplayCommand.Replayed r : ReplayCommand.replay(state, dir.resolve("cm.pcap"), null, 1,
                List.of(ResolverMode.KERNEL))) {
            // Retransmissions repeat a comm ID; the kernel decides on the first one.
            got.putIfAbsent(String.format("0x%08x", r.meta().localCommId()),
                    Prediction.label(state, r.decisions().get(0)));
        }
        Map<String, String> known = knownDifferences(dir);
        List<String> diffs = new ArrayList<>();
        List<String> documented = new ArrayList<>();
        int agree = 0;
        String scenario = dir.getFileName().toString();
        for (Map.Entry<String, String> e : want.entrySet()) {
            String g = got.get(e.getKey());
            if (e.getValue().equals(g)) {
                agree++;
                if (known.keySet().stream().anyMatch(k -> k.startsWith(scenario + "\t" + e.getKey() + "\t"))) {
                    // A documented difference that no longer differs: the row must go, or it would excuse a regression.
                    diffs.add(e.getKey() + ": agrees now, but known-differences.tsv still excuses it; remove that row");
                }
                continue;
            }
            String line = e.getKey() + ": kernel " + e.getValue() + ", cmdemux "
                    + (g == null ? "(request not in cm.pcap)" : g);
            String why = known.get(scenario + "\t" + e.getKey() + "\t" + e.getValue() + "\t" + g);
            if (why != null) {
                documented.add(line + " — " + why);
            } else {
                diffs.add(line);
            }
        }
        return new Result(scenario, want.size(), agree, documented, diffs);
    }

    /**
     * known-differences.tsv next to the fixture directories: scenario, local comm ID, what the
     * kernel's recording shows, what cmdemux decides, and why they differ (the kernel function
     * responsible). Only exact matches excuse a disagreement.
     */
    static Map<String, String> knownDifferences(Path dir) {
        Path f = dir.toAbsolutePath().getParent().resolve("known-differences.tsv");
        Map<String, String> out = new LinkedHashMap<>();
        if (!Files.isRegularFile(f)) {
            return out;
        }
        try {
            for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String[] x = line.split("\t");
                if (x.length >= 5) {
                    out.put(x[0] + "\t" + x[1].toLowerCase() + "\t" + x[2] + "\t" + x[3], x[4]);
                }
            }
        } catch (IOException e) {
            throw new EnvironmentException(f + ": " + e.getMessage(), e);
        }
        return out;
    }
}
