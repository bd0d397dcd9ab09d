package io.rattan.node;

import io.rattan.core.node.NodeConfig;
import io.rattan.core.store.Store;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real node alone ({@link NodeOptions#singleNode}: real sockets, real RocksDB) whose core reaches its store through a
 * test's wrapper, with a request timeout of the test's choosing, and an HTTP/1.1 client for its gateway: the set-up
 * {@link HungSyncNodeTest} and {@link StoreThreadNodeTest} share.
 */
abstract class HookedSingleNode {

    static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(WAIT).build();

    /** Starts the node with {@code requestTimeoutMillis} and its store wrapped by {@code hook}. */
    RattanNode start(long requestTimeoutMillis, UnaryOperator<Store> hook) throws IOException {
        NodeOptions single = NodeOptions.singleNode(dir);
        NodeConfig c = single.config();
        return RattanNode.start(single.withConfig(c.withTimeouts(requestTimeoutMillis, c.rtoInitialMillis(),
                c.rtoMinMillis(), c.rtoMaxMillis())), hook);
    }

    HttpRequest.Builder request(RattanNode node, String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.httpAddress().getPort() + path));
    }
}
