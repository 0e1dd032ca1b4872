package io.cmdemux.render.picture;

import java.util.List;

/**
 * Text inside DOT double-quoted strings. Names come from the host (a namespace can be called
 * {@code a"b<c>&é}), so every string is escaped here and nowhere else:
 * <ul>
 *   <li>{@code "} is escaped for the DOT parser;</li>
 *   <li>a backslash is doubled in labels, so that Graphviz's escapes ({@code \N}, {@code \G},
 *       {@code \l}) stay literal text; in tooltips it is doubled twice, because Graphviz
 *       unescapes a tooltip twice (a tooltip {@code \\N} still becomes the node's name);</li>
 *   <li>{@code &} becomes {@code &amp;}, because Graphviz reads {@code &name;} and {@code &#N;} in
 *       labels and tooltips as entities: without this, a name spelled {@code &lt;b&gt;} would be
 *       drawn as {@code <b>};</li>
 *   <li>control characters become U+FFFD, so that a name cannot break a line or the file.</li>
 * </ul>
 * {@code <} and {@code >} need nothing: inside quotes they are text, and Graphviz escapes them
 * in the SVG it writes.
 */
public final class DotText {
    private DotText() {}

    /** A quoted label: one line. */
    public static String quote(String s) {
        return quoteLines(List.of(s));
    }

    /** A quoted label of several lines, joined by Graphviz's centred line break. */
    public static String quoteLines(List<String> lines) {
        return join(lines, "\\\\");
    }

    /** A quoted tooltip: text that may hold line breaks of its own. */
    public static String quoteTooltip(String s) {
        return join(List.of(s.split("\n", -1)), "\\\\\\\\");
    }

    private static String join(List<String> lines, String backslash) {
        StringBuilder sb = new StringBuilder("\"");
        for (int i = 0; i < lines.size(); i++) {
            if (i > 0) {
                sb.append("\\n");
            }
            escapeInto(sb, lines.get(i), backslash);
        }
        return sb.append('"').toString();
    }

    private static void escapeInto(StringBuilder sb, String s, String backslash) {
        s.codePoints().forEach(cp -> {
            switch (cp) {
                case '\\':
                    sb.append(backslash);
                    break;
                case '"':
                    sb.append("\\\"");
                    break;
                case '&':
                    sb.append("&amp;");
                    break;
                default:
                    if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029) {
                        sb.append('\uFFFD');
                    } else {
                        sb.appendCodePoint(cp);
                    }
            }
        });
    }
}
