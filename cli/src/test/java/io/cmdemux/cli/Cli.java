package io.cmdemux.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

/** Runs the CLI in-process, reading what it writes through picocli's writers (Terminal). */
final class Cli {
    private Cli() {}

    record Result(int exit, String out, String err) {}

    static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = Main.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new Result(exit, out.toString(), err.toString());
    }
}
