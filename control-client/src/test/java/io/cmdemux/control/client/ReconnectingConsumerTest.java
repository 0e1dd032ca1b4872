package io.cmdemux.control.client;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ReconnectingConsumerTest {
    @Test
    void itTriesEvery20MillisecondsWhileARestartedDaemonIsDueAndBacksOffToOnceASecond() {
        assertThat(ReconnectingConsumer.retryDelayMillis(0)).isEqualTo(20);
        assertThat(ReconnectingConsumer.retryDelayMillis(4_999)).isEqualTo(20);
        assertThat(ReconnectingConsumer.retryDelayMillis(5_000)).isEqualTo(100);
        assertThat(ReconnectingConsumer.retryDelayMillis(59_999)).isEqualTo(100);
        assertThat(ReconnectingConsumer.retryDelayMillis(60_000)).isEqualTo(1_000);
        assertThat(ReconnectingConsumer.retryDelayMillis(86_400_000)).isEqualTo(1_000);
    }
}
