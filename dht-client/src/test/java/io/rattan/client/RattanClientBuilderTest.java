package io.rattan.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rattan.api.Address;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class RattanClientBuilderTest {

    @Test
    void aClientNeedsAGateway() {
        assertThatThrownBy(() -> RattanClient.builder().build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no gateway");
    }

    @Test
    void malformedGatewaysAreRefused() {
        assertThatThrownBy(() -> RattanClient.builder().gateway("no-port"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RattanClient.builder().gateway("host:99999"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void durationsMustBePositive() {
        RattanClient.Builder b = RattanClient.builder();
        assertThatThrownBy(() -> b.attemptTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("attemptTimeout");
        assertThatThrownBy(() -> b.totalTimeout(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("totalTimeout");
        assertThatThrownBy(() -> b.connectTimeout(Duration.ofNanos(10)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("connectTimeout");
        assertThatThrownBy(() -> b.backoff(Duration.ofSeconds(2), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("exceeds");
        assertThatThrownBy(() -> b.backoff(Duration.ZERO, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("backoff base");
        assertThatThrownBy(() -> b.attemptTimeout(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void countsMustBeSensible() {
        RattanClient.Builder b = RattanClient.builder();
        assertThatThrownBy(() -> b.maxRetries(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.eventLoopThreads(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.maxRequestsInFlight(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void defaultsAreTheDocumentedOnesAndRepeatedGatewaysCollapse() {
        try (RattanClient client = RattanClient.builder()
                .gateway("127.0.0.1:4001")
                .gateways(List.of(new Address("127.0.0.1", 4001), new Address("127.0.0.1", 4002)))
                .build()) {
            ClientConfig c = client.runtime().config();
            assertThat(c.gateways()).containsExactly(new Address("127.0.0.1", 4001), new Address("127.0.0.1", 4002));
            assertThat(c.attemptTimeout()).isEqualTo(Duration.ofSeconds(2));
            assertThat(c.totalTimeout()).isEqualTo(Duration.ofSeconds(10));
            assertThat(c.maxRetries()).isEqualTo(3);
            assertThat(c.backoffBase()).isEqualTo(Duration.ofMillis(50));
            assertThat(c.backoffMax()).isEqualTo(Duration.ofSeconds(1));
            assertThat(c.connectTimeout()).isEqualTo(Duration.ofSeconds(2));
            assertThat(c.eventLoopThreads()).isEqualTo(1);
            assertThat(c.requestsInFlightMax()).isEqualTo(65_536);
            assertThat(c.meterRegistry()).isNull();
            assertThat(c.loadRing()).as("the ring is loaded at start by default").isTrue();
            // The ring's load, in flight to a gateway that is not there, is not one of the caller's calls.
            assertThat(client.requestsInFlight()).isZero();
        }
    }
}
