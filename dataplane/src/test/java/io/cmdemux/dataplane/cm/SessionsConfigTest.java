package io.cmdemux.dataplane.cm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SessionsConfigTest {

    @Test
    void maxSessionsIsRefusedBeyondIndexesThatFitJavaArrays() {
        long length = SessionTable.indexLength(Sessions.MAX_SESSIONS);
        assertThat(length).isGreaterThanOrEqualTo(2L * Sessions.MAX_SESSIONS)
                .isLessThanOrEqualTo(Integer.MAX_VALUE - 8);
        assertThat(Long.bitCount(length)).isEqualTo(1);
        assertThat(new Sessions.Config(Sessions.MAX_SESSIONS, 1000, 60_000).maxSessions())
                .isEqualTo(Sessions.MAX_SESSIONS);
        assertThatThrownBy(() -> new Sessions.Config(Sessions.MAX_SESSIONS + 1, 1000, 60_000))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxSessions");
        assertThatThrownBy(() -> new Sessions.Config(0, 1000, 60_000)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void everyIndexIsAtMostHalfFullAtTheLimit() {
        for (int max : new int[] {1, 2, 3, 4096, 4097, 1 << 20, (1 << 20) + 1}) {
            int length = SessionTable.indexLength(max);
            assertThat(Integer.bitCount(length)).as("power of two for %d", max).isEqualTo(1);
            assertThat((long) length).as("room for %d", max).isGreaterThanOrEqualTo(2L * max)
                    .isLessThanOrEqualTo(4L * max + 4);
        }
    }
}
