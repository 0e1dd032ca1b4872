package io.cmdemux.render.picture;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * An SVG (or the XML-shaped status page) parsed by the JDK's XML parser, never fetching the
 * DTD Graphviz names, with the queries the tests need. A document that does not parse fails
 * the test: that alone shows no name broke the markup.
 */
public final class SvgDoc {
    public final Document doc;

    private SvgDoc(Document doc) {
        this.doc = doc;
    }

    public static SvgDoc parse(String xml) {
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setNamespaceAware(true);
            f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
            f.setExpandEntityReferences(false);
            DocumentBuilder b = f.newDocumentBuilder();
            b.setErrorHandler(null);
            return new SvgDoc(b.parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8))));
        } catch (Exception e) {
            throw new AssertionError("not well-formed XML: " + e.getMessage(), e);
        }
    }

    /** Every element's local name. */
    public Set<String> elementNames() {
        Set<String> out = new TreeSet<>();
        NodeList all = doc.getElementsByTagNameNS("*", "*");
        for (int i = 0; i < all.getLength(); i++) {
            out.add(all.item(i).getLocalName());
        }
        return out;
    }

    /** The element with this id attribute, or null. */
    public Element byId(String id) {
        NodeList all = doc.getElementsByTagNameNS("*", "*");
        for (int i = 0; i < all.getLength(); i++) {
            Element e = (Element) all.item(i);
            if (id.equals(e.getAttribute("id"))) {
                return e;
            }
        }
        return null;
    }

    /** The text of every {@code <text>} inside an element, in order. */
    public static List<String> texts(Element e) {
        List<String> out = new ArrayList<>();
        NodeList ts = e.getElementsByTagNameNS("*", "text");
        for (int i = 0; i < ts.getLength(); i++) {
            out.add(ts.item(i).getTextContent());
        }
        return out;
    }

    /** The first {@code <title>} child's text. */
    public static String title(Element e) {
        NodeList ts = e.getElementsByTagNameNS("*", "title");
        return ts.getLength() == 0 ? null : ts.item(0).getTextContent();
    }

    /** Elements whose class attribute holds every one of these classes. */
    public List<Element> withClasses(String... classes) {
        List<Element> out = new ArrayList<>();
        NodeList all = doc.getElementsByTagNameNS("*", "*");
        outer:
        for (int i = 0; i < all.getLength(); i++) {
            Element e = (Element) all.item(i);
            List<String> have = List.of(e.getAttribute("class").split(" "));
            for (String c : classes) {
                if (!have.contains(c)) {
                    continue outer;
                }
            }
            out.add(e);
        }
        return out;
    }
}
