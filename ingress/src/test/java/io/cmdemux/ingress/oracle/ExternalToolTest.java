package io.cmdemux.ingress.oracle;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** A missing oracle fails the test that needs it, naming the Debian package; it never skips. */
class ExternalToolTest {
    @Test
    void missingProgramFailsAndNamesTheDebianPackage() {
        assertThatThrownBy(() -> ExternalTool.require("cmdemux-no-such-oracle", "some-debian-package"))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("apt-get install -y some-debian-package");
    }
}
