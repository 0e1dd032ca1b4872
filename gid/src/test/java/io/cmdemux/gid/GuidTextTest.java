package io.cmdemux.gid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** A GUID as sysfs writes it (node_guid, ports/N/gids) and as people copy it from ibstat ("0x0002c90300000001"). */
class GuidTextTest {
    @Test
    void sysfsAndHexFormsAreTheSameGuid() {
        assertThat(Gid.parseGuid("0002:c903:0000:0001")).isEqualTo(0x0002c90300000001L);
        assertThat(Gid.parseGuid("0x0002c90300000001")).isEqualTo(0x0002c90300000001L);
        assertThat(Gid.parseGuid("2c90300000001")).isEqualTo(0x0002c90300000001L);
        assertThat(Gid.parseGuid("ffff:ffff:ffff:fffe")).isEqualTo(0xfffffffffffffffeL);
    }

    @Test
    void anythingElseIsRefused() {
        for (String bad : new String[] {"", "0x", "zz", "0002:c903:0000", "0x10000000000000000", "fe80::1"}) {
            assertThatThrownBy(() -> Gid.parseGuid(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("not a GUID");
        }
    }
}
