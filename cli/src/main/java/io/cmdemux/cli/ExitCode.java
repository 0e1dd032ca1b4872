package io.cmdemux.cli;

/**
 * What a `cmdemux` exit status means, the same for every command, so that scripts can tell "the answer
 * is no" from "you asked wrongly" from "this host cannot answer".
 */
final class ExitCode {
    /** The command did what was asked; for a question, the answer is yes (deliver, a GID index, a path). */
    static final int OK = 0;
    /** The answer is no: reject or drop, no GID index, no path, a check that found problems. */
    static final int NO = 1;
    /** The command line is wrong (picocli's own usage errors exit with 2 too). */
    static final int USAGE = 2;
    /** The host cannot answer: a file, device, package or privilege that is missing. */
    static final int ENVIRONMENT = 3;

    private ExitCode() {}
}
