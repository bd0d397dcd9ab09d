package io.rattan.bench.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a get of the population must return, around a value's expiry; times are given, not read from a clock. */
class PopulationTest {

    private static final long SECOND = 1_000_000_000L;
    private final Population population = new Population("t", 3, 2, 32, Duration.ofSeconds(60));

    @Test
    void aLiveKeyMustReturnExactlyItsValues() {
        population.putDone(0, 0, 0);
        population.putDone(0, 1, 0);
        byte[] v0 = population.value(0, 0);
        byte[] v1 = population.value(0, 1);

        assertThat(population.matches(0, 10 * SECOND, List.of(v1, v0))).isTrue();
        assertThat(population.matches(0, 10 * SECOND, List.of(v0))).as("one value missing").isFalse();
        assertThat(population.matches(0, 10 * SECOND, List.of(v0, v1, v1))).as("a value twice").isFalse();
        assertThat(population.matches(0, 10 * SECOND, List.of(v0, population.value(1, 0)))).as("another key's")
                .isFalse();
        byte[] corrupt = v1.clone();
        corrupt[corrupt.length - 1] ^= 1;
        assertThat(population.matches(0, 10 * SECOND, List.of(v0, corrupt))).as("one bit flipped").isFalse();
    }

    @Test
    void nearItsExpiryAValueMayBeAbsentAndAfterItMustBe() {
        population.putDone(2, 0, 0);
        population.putDone(2, 1, 0);
        List<byte[]> both = List.of(population.value(2, 0), population.value(2, 1));

        assertThat(population.matches(2, 54 * SECOND, List.of())).as("well before expiry").isFalse();
        assertThat(population.matches(2, 57 * SECOND, List.of())).as("within the slack").isTrue();
        assertThat(population.matches(2, 63 * SECOND, both)).as("within the slack").isTrue();
        assertThat(population.matches(2, 66 * SECOND, both)).as("well after expiry").isFalse();
        assertThat(population.matches(2, 66 * SECOND, List.of())).isTrue();
    }

    @Test
    void aReputMovesTheExpiryAndAnAbsentKeyMustBeEmpty() {
        population.putDone(1, 0, 0);
        population.putDone(1, 1, 0);
        population.putDone(1, 1, 40 * SECOND);

        assertThat(population.matches(1, 70 * SECOND, List.of(population.value(1, 1)))).isTrue();
        assertThat(population.due(1, 0, 30 * SECOND)).isTrue();
        assertThat(population.due(1, 1, 50 * SECOND)).isFalse();
        assertThat(population.matches(-1, 0, List.of())).isTrue();
        assertThat(population.matches(-1, 0, List.of(population.value(0, 0)))).isFalse();
    }
}
