package io.cmdemux.cli;

import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * Where a command writes: the writers picocli was given (Main.run), so that a test reads exactly what a
 * user sees and nothing goes around them. A mixin, so each command gets it with one line; picocli takes
 * a class as a mixin only when it carries one of its annotations, hence the empty @Command.
 */
@Command
final class Terminal {
    @Spec(Spec.Target.MIXEE)
    CommandSpec mixee;

    PrintWriter out() {
        return mixee.commandLine().getOut();
    }

    PrintWriter err() {
        return mixee.commandLine().getErr();
    }
}
