package io.cmdemux.daemon;

/**
 * Text and attribute values for the status page. Everything that comes from the host (namespace
 * and link names, listener owners, reasons) passes through {@link #text}; the page is also
 * well-formed XML, so control characters other than tab and newline, which XML forbids, are
 * replaced.
 */
public final class Html {
    private Html() {}

    /** Escaped for element content and double-quoted attribute values alike. */
    public static String text(String s) {
        if (s == null) {
            return "";
        }
        StringBuilder sb = new StringBuilder(s.length() + 16);
        s.codePoints().forEach(cp -> {
            switch (cp) {
                case '&':
                    sb.append("&amp;");
                    break;
                case '<':
                    sb.append("&lt;");
                    break;
                case '>':
                    sb.append("&gt;");
                    break;
                case '"':
                    sb.append("&quot;");
                    break;
                case '\'':
                    sb.append("&#39;");
                    break;
                default:
                    if ((cp < 0x20 && cp != '\t' && cp != '\n') || (cp >= 0x7f && cp <= 0x9f) || cp == 0xfffe
                            || cp == 0xffff) {
                        sb.append('\uFFFD');
                    } else {
                        sb.appendCodePoint(cp);
                    }
            }
        });
        return sb.toString();
    }
}
