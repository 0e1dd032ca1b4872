package io.cmdemux.service;

import io.cmdemux.service.picture.DotWriter;
import io.cmdemux.service.picture.Graph;
import io.cmdemux.service.picture.Graphviz;

/** A picture written out as the verbs print it: DOT as it is, SVG through Graphviz. */
final class Pictures {
    private Pictures() {}

    static String render(Graph g, Format f) {
        String dot = DotWriter.write(g);
        if (f == Format.DOT) {
            return dot;
        }
        try {
            return Graphviz.fromEnvironment().svg(dot);
        } catch (Graphviz.GraphvizException e) {
            throw new EnvironmentException(e.getMessage(), e);
        }
    }
}
