package io.rattan.bench.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rattan.api.GetOptions;
import io.rattan.api.RoutingMode;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Mode names as the simulator's table writes them (docs/experiments.md) map to the client's options. */
class GetModeTest {

    @Test
    void theTablesNamesMapToTheClientsOptions() {
        GetOptions da = GetOptions.of(RoutingMode.DELAY_AWARE);
        assertThat(GetMode.parse("greedy").options()).isEqualTo(GetOptions.of(RoutingMode.GREEDY));
        assertThat(GetMode.parse("delay-aware-3gw").options()).isEqualTo(da.withGateways(3));
        assertThat(GetMode.parse("iterative-3-2gw").options())
                .isEqualTo(GetOptions.of(RoutingMode.ITERATIVE).withParallelism(3).withGateways(2));
        assertThat(GetMode.parse("hedged").options()).isEqualTo(da.withHedge(true));
        assertThat(GetMode.parse("one-hop-hedged").options()).isEqualTo(da.withHedge(true).withOneHop(true));
        assertThat(GetMode.parseList(List.of("all"), GetMode.all())).hasSize(9);
        assertThatThrownBy(() -> GetMode.parse("fastest")).hasMessageContaining("unknown get mode");
    }

    @Test
    void theHttpQueryNamesEveryParameterSoTheGatewaysDefaultsDoNotApply() {
        // The HTTP API hedges by default: a plain mode must say hedge=false.
        assertThat(GetMode.parse("delay-aware").httpQuery())
                .isEqualTo("routing=delay-aware&gateways=1&hedge=false&onehop=false");
        assertThat(GetMode.parse("iterative-2").httpQuery())
                .isEqualTo("routing=iterative&p=2&gateways=1&hedge=false&onehop=false");
    }
}
