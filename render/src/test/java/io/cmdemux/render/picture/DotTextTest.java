package io.cmdemux.render.picture;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** DOT string escaping, character by character. */
class DotTextTest {
    @Test
    void quotesAreEscapedForTheParserAndBackslashesStayLiteralInLabelsAndTooltips() {
        assertThat(DotText.quote("a\"b")).isEqualTo("\"a\\\"b\"");
        assertThat(DotText.quote("c:\\N")).isEqualTo("\"c:\\\\N\"");
        assertThat(DotText.quoteTooltip("c:\\N")).isEqualTo("\"c:\\\\\\\\N\"");
    }

    @Test
    void ampersandsAreEntitiesSoThatEntityLookingNamesStayLiteral() {
        assertThat(DotText.quote("a&lt;b")).isEqualTo("\"a&amp;lt;b\"");
    }

    @Test
    void angleBracketsAndUnicodeNeedNothingInsideQuotes() {
        assertThat(DotText.quote("<b>é名🚀</b>")).isEqualTo("\"<b>é名🚀</b>\"");
    }

    @Test
    void controlCharactersCannotBreakALine() {
        assertThat(DotText.quote("a\nb\u0000c\u0085")).isEqualTo("\"a\uFFFDb\uFFFDc\uFFFD\"");
    }

    @Test
    void linesAreJoinedWithGraphvizsLineBreak() {
        assertThat(DotText.quoteLines(List.of("x\"", "y"))).isEqualTo("\"x\\\"\\ny\"");
        assertThat(DotText.quoteTooltip("one\ntwo")).isEqualTo("\"one\\ntwo\"");
    }
}
