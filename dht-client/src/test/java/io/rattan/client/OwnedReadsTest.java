package io.rattan.client;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rattan.api.Bytes;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.OwnerStamp;
import io.rattan.api.SignedOp;
import io.rattan.core.msg.ClientMessages.ClientPut;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The client checks every owned value a get returns against its owner's signature before the caller sees it: a
 * gateway that serves an altered or made-up one (here a {@link FakeGateway} told to) has it dropped and counted.
 */
class OwnedReadsTest {

    private static final Id KEY = Id.ofName("owned reads");

    @RegisterExtension
    final Closer closer = new Closer();

    private final OwnerKey owner = OwnerKey.generate();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @Test
    void anOwnedValueWhoseSignatureFailsIsDroppedAndCounted() throws Exception {
        FakeGateway gw = closer.track(FakeGateway.start());
        RattanClient client = closer.track(RattanClient.builder().loadRing(false).gateways(List.of(gw.address()))
                .meterRegistry(registry).build());
        Instant expiry = Instant.now().plusSeconds(3600);
        client.putOwnedSync(KEY, "signed".getBytes(UTF_8), owner, 1, 1, expiry);
        client.putSync(KEY, "anonymous".getBytes(UTF_8), Duration.ofMinutes(10));
        ClientPut signed = (ClientPut) gw.received().stream().filter(m -> m instanceof ClientPut p && p.stamp() != null)
                .findFirst().orElseThrow();
        OwnerStamp s = signed.stamp();
        // The owner's stamp on other bytes, and a stamp for another key, with a higher sequence.
        gw.store().plant(KEY, stored("altered", s));
        OwnerStamp elsewhere = owner.sign(SignedOp.PUT, Id.ofName("another key"), 1, 2, s.expiresAtSeconds(),
                Bytes.utf8("moved").sha256());
        gw.store().plant(KEY, stored("moved", elsewhere));

        GetResult result = client.getSync(KEY);
        assertThat(result.values()).extracting(GetResult.Value::utf8).containsExactlyInAnyOrder("signed", "anonymous");
        GetResult.Value owned = result.values().stream().filter(GetResult.Value::isOwned).findFirst().orElseThrow();
        assertThat(owned.owner()).isEqualTo(s);
        assertThat(owned.owner().owner()).isEqualTo(owner.publicKey());
        assertThat(registry.counter(ClientMetrics.FORGED).count()).isEqualTo(2.0);

        GetResult page = client.getPage(KEY, 10, Bytes.EMPTY).get();
        assertThat(page.values()).extracting(GetResult.Value::utf8).containsExactlyInAnyOrder("signed", "anonymous");
        assertThat(registry.counter(ClientMetrics.FORGED).count()).isEqualTo(4.0);

        // This gateway ignores a get's filter: the client drops what does not pass it, and counts it.
        GetResult mine = client.getSync(KEY, GetOptions.builder().owner(owner.publicKey()).build());
        assertThat(mine.values()).extracting(GetResult.Value::utf8).containsExactly("signed");
        assertThat(registry.counter(ClientMetrics.FORGED).count()).isEqualTo(7.0);
    }

    private static FakeGateway.Store.Stored stored(String data, OwnerStamp stamp) {
        return new FakeGateway.Store.Stored(Bytes.utf8(data), Bytes.EMPTY, stamp.expiresAtMillis(), stamp);
    }
}
