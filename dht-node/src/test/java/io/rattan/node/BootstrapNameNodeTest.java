package io.rattan.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A bootstrap given as a host name, on real nodes: {@code localhost:PORT} is resolved off the loop and joined through;
 * and the resolver's rounds hand the node every address of a name, literals as they are, itself left out.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class BootstrapNameNodeTest {

    @TempDir
    Path dir;
    private final List<RattanNode> nodes = new ArrayList<>();

    @AfterEach
    void stop() {
        nodes.forEach(RattanNode::halt);
    }

    @Test
    void aNodeJoinsThroughAHostName() throws Exception {
        RattanNode first = RattanNode.start(NodeOptions.local(dir.resolve("a")));
        nodes.add(first);
        Address byName = new Address("localhost", first.contact().address().port());
        RattanNode second = RattanNode.start(NodeOptions.local(dir.resolve("b")).withBootstrap(List.of(byName)));
        nodes.add(second);
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(second::isJoined);
        Awaitility.await().atMost(Duration.ofSeconds(30))
                .until(() -> second.status().leafSet().contains(first.contact()));
        assertThat(first.status().leafSet()).contains(second.contact());
    }

    @Test
    void aNameStandsForAllItsAddressesAndNeverForThisNode() throws Exception {
        Address self = new Address("10.0.0.2", 4000);
        BootstrapResolver.Lookup lookup = host -> {
            if (host.equals("peers.rattan")) {
                return List.of(InetAddress.getByName("10.0.0.1"), InetAddress.getByName("10.0.0.2"),
                        InetAddress.getByName("10.0.0.3"));
            }
            throw new UnknownHostException(host);
        };
        List<Address> bootstrap = List.of(new Address("10.0.0.9", 4000), new Address("peers.rattan", 4000),
                new Address("not-yet.rattan", 4000), new Address("10.0.0.1", 4000));
        assertThat(BootstrapResolver.namesAHost(bootstrap)).isTrue();
        assertThat(BootstrapResolver.namesAHost(List.of(self))).isFalse();
        assertThat(BootstrapResolver.literals(bootstrap))
                .containsExactly(new Address("10.0.0.9", 4000), new Address("10.0.0.1", 4000));
        // A round's addresses, in the list's order: the unresolved name is skipped until it resolves.
        assertThat(resolvedOnce(bootstrap, self, lookup)).containsExactly(new Address("10.0.0.9", 4000),
                new Address("10.0.0.1", 4000), new Address("10.0.0.3", 4000));
    }

    private static List<Address> resolvedOnce(List<Address> bootstrap, Address self, BootstrapResolver.Lookup lookup) {
        // The node is a stand-in that never answers: the rounds resolve, and this one is read directly.
        BootstrapResolver r = BootstrapResolver.start(bootstrap, self, lookup, f -> new CompletableFuture<>());
        try {
            return r.resolve();
        } finally {
            r.stop();
        }
    }
}
