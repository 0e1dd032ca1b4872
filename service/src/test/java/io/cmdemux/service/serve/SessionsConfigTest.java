package io.cmdemux.service.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cmdemux.ingress.wire.RoceFrameBuilder;
import org.junit.jupiter.api.Test;

class SessionsConfigTest {

    @Test
    void maxSessionsIsRefusedWhereTheHeadersOfAllAnswersWouldNotFitOneArray() {
        assertThat((long) Sessions.MAX_SESSIONS * RoceFrameBuilder.MAX_REPLY_HEADERS).isLessThanOrEqualTo(Integer.MAX_VALUE);
        assertThat((long) (Sessions.MAX_SESSIONS + 1) * RoceFrameBuilder.MAX_REPLY_HEADERS).isGreaterThan(Integer.MAX_VALUE);
        assertThat(new Sessions.Config(Sessions.MAX_SESSIONS, 1000, 60_000).maxSessions()).isEqualTo(Sessions.MAX_SESSIONS);
        assertThatThrownBy(() -> new Sessions.Config(Sessions.MAX_SESSIONS + 1, 1000, 60_000))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxSessions");
        assertThatThrownBy(() -> new Sessions.Config(0, 1000, 60_000)).isInstanceOf(IllegalArgumentException.class);
    }
}
