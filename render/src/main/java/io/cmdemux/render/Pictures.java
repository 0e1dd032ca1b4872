package io.cmdemux.render;

import java.io.UncheckedIOException;
import io.cmdemux.render.picture.DotWriter;
import io.cmdemux.render.picture.Graph;
import io.cmdemux.render.picture.Graphviz;

/**
 * A picture written out as the verbs print it: DOT as it is, SVG through Graphviz. Without
 * Graphviz an UncheckedIOException says so (the CLI's environment error).
 */
public final class Pictures {
    private Pictures() {}

    public static String render(Graph g, Format f) {
        String dot = DotWriter.write(g);
        if (f == Format.DOT) {
            return dot;
        }
        try {
            return Graphviz.fromEnvironment().svg(dot);
        } catch (Graphviz.GraphvizException e) {
            throw new UncheckedIOException(new java.io.IOException(e.getMessage(), e));
        }
    }
}
