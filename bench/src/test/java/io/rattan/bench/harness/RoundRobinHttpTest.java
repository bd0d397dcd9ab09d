package io.rattan.bench.harness;

import static io.rattan.bench.harness.KeepAliveHttpClientTest.failure;
import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.bench.harness.Target.TargetFailure;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Round robin and the mapping of answers to failures, against two real local HTTP servers. */
class RoundRobinHttpTest {

    private final HttpTestServer a = new HttpTestServer();
    private final HttpTestServer b = new HttpTestServer();

    @AfterEach
    void close() {
        a.close();
        b.close();
    }

    @Test
    void requestsGoToTheEndpointsInTurnEachOverOneConnection() {
        try (RoundRobinHttp http = new RoundRobinHttp(List.of(a.address(), b.address()), Duration.ofSeconds(10))) {
            for (int i = 0; i < 20; i++) {
                String body = http.get("/ok/" + i, 200, x -> new String(x, StandardCharsets.UTF_8)).join();
                assertThat(body).isEqualTo("ok /ok/" + i);
            }
        }
        assertThat(a.requests()).isEqualTo(10);
        assertThat(b.requests()).isEqualTo(10);
        assertThat(a.accepted()).isEqualTo(1);
        assertThat(b.accepted()).isEqualTo(1);
    }

    @Test
    void anUnexpectedStatusFailsWithTheBodyAnd504IsATimeout() {
        try (RoundRobinHttp http = new RoundRobinHttp(List.of(a.address()), Duration.ofSeconds(10))) {
            TargetFailure busy = TargetFailure.of(failure(http.get("/status/503", 200, x -> x)));
            assertThat(busy.timeout()).isFalse();
            assertThat(busy).hasMessage("HTTP 503 status 503");

            TargetFailure late = TargetFailure.of(failure(http.get("/status/504", 200, x -> x)));
            assertThat(late.timeout()).isTrue();

            // 201 is a put's success, not a get's.
            assertThat(TargetFailure.of(failure(http.post("/echo", "text/plain", new byte[] {'x'}, 200, x -> x)))
                    .timeout()).isFalse();
            assertThat(http.post("/echo", "text/plain", new byte[] {'x'}, 201,
                    x -> new String(x, StandardCharsets.UTF_8)).join()).isEqualTo("text/plain|x");
        }
    }

    @Test
    void noAnswerInTimeIsATimeoutFailure() {
        try (RoundRobinHttp http = new RoundRobinHttp(List.of(a.address()), Duration.ofMillis(300))) {
            TargetFailure f = TargetFailure.of(failure(http.get("/stall", 200, x -> x)));
            assertThat(f.timeout()).isTrue();
        }
    }
}
