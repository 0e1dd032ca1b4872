package io.cmdemux.render;

import java.util.Locale;

/** Output formats of the read verbs: human text, JSON, and the pictures (Graphviz source or SVG). */
public enum Format {
    TEXT, JSON, DOT, SVG;

    public boolean picture() {
        return this == DOT || this == SVG;
    }

    /**
     * The format asked for: {@code --format}, or {@code --json} (its older spelling), or text.
     *
     * @throws IllegalArgumentException for an unknown format, or --json with another format
     */
    public static Format choose(String format, boolean json, String allowed) {
        Format f = TEXT;
        if (format != null) {
            try {
                f = Format.valueOf(format.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--format " + format + ": expected " + allowed);
            }
        }
        if (json) {
            if (format != null && f != JSON) {
                throw new IllegalArgumentException("--json is --format json; give one of them");
            }
            f = JSON;
        }
        return f;
    }
}
