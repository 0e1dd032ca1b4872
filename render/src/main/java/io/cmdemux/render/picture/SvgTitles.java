package io.cmdemux.render.picture;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Graphviz puts a node's DOT name in its SVG {@code <title>} and its tooltip in an
 * {@code <a xlink:title>} inside. Browsers show the nearest title, but readers of the SVG (and
 * screen readers) look at {@code <title>}: so the tooltip, which says what a node is or why a
 * candidate was rejected, replaces the name there. The attribute value is already XML-escaped
 * by Graphviz, and escaped attribute text is valid element text, so it is copied as it is.
 */
public final class SvgTitles {
    private static final Pattern GROUP = Pattern.compile(
            "(<g id=\"([A-Za-z0-9_]+)\" class=\"[^\"]*\">\\s*<title>)[^<]*(</title>\\s*<g id=\"a_\\2\"><a"
                    + " xlink:title=\"([^\"]*)\")");

    private SvgTitles() {}

    public static String fromTooltips(String svg) {
        Matcher m = GROUP.matcher(svg);
        StringBuilder sb = new StringBuilder(svg.length() + 1024);
        while (m.find()) {
            m.appendReplacement(sb, Matcher.quoteReplacement(m.group(1) + m.group(4) + m.group(3)));
        }
        m.appendTail(sb);
        return sb.toString();
    }

    /** The SVG element alone, for inlining in HTML: without the XML declaration, doctype and comments before it. */
    public static String inline(String svg) {
        int at = svg.indexOf("<svg");
        return at < 0 ? svg : svg.substring(at);
    }
}
