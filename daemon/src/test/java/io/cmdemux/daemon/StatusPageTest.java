package io.cmdemux.daemon;

import io.cmdemux.dataplane.metrics.Metrics;
import static org.assertj.core.api.Assertions.assertThat;

import io.cmdemux.render.picture.SvgDoc;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The status page's markup, parsed by an XML parser (the page is written to be well-formed
 * XML as well as HTML): what comes from the host is text, never markup, and there is no script.
 */
class StatusPageTest {
    static final String EVIL = "pod\"><script>alert(1)</script><b onmouseover='x'>é名🚀&amp;</b>";
    static final Set<String> PAGE_VOCABULARY = Set.of("html", "head", "meta", "title", "style", "body", "h1", "h2", "p",
            "b", "small", "a",
            "section", "span", "table", "thead", "tbody", "tr", "th", "td", "div");

    private static StatusPage.Model model(String svg) {
        List<StatusPage.DecisionRow> rows = List.of(
                new StatusPage.DecisionRow(2, 1_700_000_000_000L, "rxe0", "10.0.0.9:4000 → 10.0.0.2:7471", "reject",
                        EVIL + " (4026532001)",
                        "REJ 28 consumer defined: nobody listens in " + EVIL, "/decision/2.svg"),
                new StatusPage.DecisionRow(1, 1_700_000_000_000L, "rxe0", "10.0.0.9:4000 → 10.0.0.1:7471", "deliver",
                        "pod1 (4026532000)",
                        "listener 0.0.0.0:7471/tcp", "/decision/1.svg"));
        return new StatusPage.Model("host<1>", Instant.ofEpochMilli(1_700_000_000_000L), 5, 12, 3, 4, 2,
                rows, svg, null, List.of(new StatusPage.NamespaceRow(EVIL, 4026532001L, 1, 2, true)),
                List.of(new Metrics.Reading("decisions", "outcome=" + EVIL, 3)),
                new StatusPage.KernelSection("observing /sys/kernel/tracing/instances/cmdemux", 2, 1,
                        "1 " + EVIL, List.of(
                        new StatusPage.KernelRow(2, 1_700_000_000_000L, "mlx5_0/1", "0x1c8f80ee", "deliver:" + EVIL,
                                EVIL, "deliver:pod1", "DISAGREE"),
                        new StatusPage.KernelRow(1, 1_700_000_000_000L, "mlx5_0/1", "0x1b8f80ee", "reject:28", "",
                                "reject:28", "agree"))));
    }

    @Test
    void eachKernelDecisionIsARowWithItsAgreementAndHostileNamesStayText() {
        SvgDoc page = SvgDoc.parse(StatusPage.render(model(null)));
        assertThat(page.elementNames()).isSubsetOf(PAGE_VOCABULARY);
        List<Element> rows = elements(page, "tr").stream().filter(r -> r.getAttribute("class")
                .startsWith("kernel-decision")).toList();
        assertThat(rows).extracting(r -> r.getAttribute("data-seq")).containsExactly("2", "1");
        assertThat(rows).extracting(r -> r.getAttribute("class"))
                .containsExactly("kernel-decision disagree", "kernel-decision agree");
        assertThat(rows.get(0).getTextContent()).contains("deliver:" + EVIL).contains("deliver:pod1");
        assertThat(page.byId("kernel-disagreements").getTextContent()).isEqualTo("1");
        assertThat(page.byId("kernel-state").getTextContent())
                .isEqualTo("observer observing /sys/kernel/tracing/instances/cmdemux");
    }

    private static List<Element> elements(SvgDoc doc, String name) {
        List<Element> out = new ArrayList<>();
        NodeList l = doc.doc.getElementsByTagNameNS("*", name);
        for (int i = 0; i < l.getLength(); i++) {
            out.add((Element) l.item(i));
        }
        return out;
    }

    @Test
    void hostileNamesAreTextInEveryTableAndNoElementComesFromThem() {
        SvgDoc page = SvgDoc.parse(StatusPage.render(model(null)));
        assertThat(page.elementNames()).isSubsetOf(PAGE_VOCABULARY);
        assertThat(elements(page, "script")).isEmpty();
        List<String> cells = elements(page, "td").stream().map(Element::getTextContent).toList();
        assertThat(cells).contains(EVIL, EVIL + " (4026532001)", "REJ 28 consumer defined: nobody listens in " + EVIL,
                "outcome=" + EVIL);
        assertThat(elements(page, "b")).allSatisfy(b -> assertThat(b.getAttribute("onmouseover")).isEmpty());
        assertThat(elements(page, "title").get(0).getTextContent()).isEqualTo("cmdemux on host<1>");
    }

    @Test
    void eachDecisionIsARowWithItsOutcomeNamespaceReasonAndTraceLink() {
        SvgDoc page = SvgDoc.parse(StatusPage.render(model(null)));
        List<Element> rows = elements(page, "tr").stream().filter(r -> r.getAttribute("class")
                .startsWith("decision")).toList();
        assertThat(rows).extracting(r -> r.getAttribute("data-seq")).containsExactly("2", "1");
        assertThat(rows.get(1).getAttribute("class")).isEqualTo("decision deliver");
        List<Element> links = elements(page, "a").stream().filter(a -> a.getAttribute("class")
                .equals("trace")).toList();
        assertThat(links).extracting(a -> a.getAttribute("href")).containsExactly("/decision/2.svg", "/decision/1.svg");
    }

    @Test
    void theTopologySvgIsInlineAndThePageReloadsItselfWithoutScript() {
        String svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10pt\"><g id=\"ns_1\" class=\"node"
                + " netns\"><title>x</title></g></svg>";
        String html = StatusPage.render(model(svg));
        SvgDoc page = SvgDoc.parse(html);
        assertThat(page.byId("ns_1")).isNotNull();
        Element refresh = elements(page, "meta").stream().filter(m -> m.getAttribute("http-equiv").equals("refresh"))
                .findFirst().orElseThrow();
        assertThat(refresh.getAttribute("content")).isEqualTo("5");
        assertThat(html).doesNotContain("<script").doesNotContain("src=");
        assertThat(elements(page, "a")).as("every link stays on the daemon")
                .allSatisfy(a -> assertThat(a.getAttribute("href")).startsWith("/"));
    }
}
