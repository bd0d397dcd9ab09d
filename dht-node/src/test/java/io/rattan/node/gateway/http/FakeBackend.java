package io.rattan.node.gateway.http;

import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Cost;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.ClientMessages.ClientRemove;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.msg.RequestMessages.RemoveReply;
import io.rattan.core.msg.RequestMessages.ValueEntry;
import io.rattan.core.msg.SecretBinding;
import io.rattan.core.net.Contact;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.node.NodeStatus;
import io.rattan.core.store.StoredRecord;
import io.rattan.node.gateway.GatewayBackend;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * An in-memory stand-in for a node: a multi-value map with secrets, served on its own single thread as a node's
 * event loop would be. Knobs let a test force any reply, a hang, or a failure.
 */
final class FakeBackend implements GatewayBackend, AutoCloseable {

    static final Contact SELF = new Contact(Id.ofName("self"), new Address("127.0.0.1", 4000));

    private final NodeConfig config;
    private final ExecutorService loop = Executors.newSingleThreadExecutor(r -> new Thread(r, "fake-node-loop"));
    private final Map<Id, TreeMap<Bytes, Stored>> data = new HashMap<>();
    final List<Message> requests = new CopyOnWriteArrayList<>();
    /** The gateways and hedge of each get, as {@code "g=N hedge=B"}, in arrival order. */
    final List<String> getModes = new CopyOnWriteArrayList<>();
    /** The options of each get, in arrival order. */
    final List<GetOptions> getOptions = new CopyOnWriteArrayList<>();

    /** When set, every client request is answered with what this returns instead of being served. */
    volatile Function<Message, Message> override;
    /** When set, request futures never complete. */
    volatile boolean hang;
    /** When set, request futures complete exceptionally with this. */
    volatile RuntimeException failure;
    /** Delay before answering, to let tests reorder or overlap requests. */
    volatile long delayMillis;
    volatile boolean joined = true;
    volatile int hops = 2;
    volatile Bytes placemark = Bytes.EMPTY;
    volatile Cost cost = Cost.ZERO;
    /** The moment the last {@code armSlowTrace} gave, -1 before any; whether the node replays a trace. */
    volatile long armedAt = -1;
    volatile boolean replaysTrace = true;

    private record Stored(Bytes value, Bytes binding, int ttlSeconds) {
    }

    FakeBackend(NodeConfig config) {
        this.config = config;
    }

    @Override
    public CompletableFuture<Boolean> armSlowTrace(long epochMillis) {
        armedAt = epochMillis;
        return CompletableFuture.completedFuture(replaysTrace);
    }

    @Override
    public CompletableFuture<Message> request(Message clientRequest) {
        if (clientRequest instanceof ClientGet get) {
            GetOptions options = get.options();
            getModes.add("g=" + options.gateways() + " hedge=" + options.hedge() + (options.oneHop() ? " onehop" : ""));
            getOptions.add(options);
        }
        requests.add(clientRequest);
        if (hang) {
            return new CompletableFuture<>();
        }
        CompletableFuture<Message> reply = new CompletableFuture<>();
        loop.execute(() -> {
            try {
                if (delayMillis > 0) {
                    Thread.sleep(delayMillis);
                }
                if (failure != null) {
                    reply.completeExceptionally(failure);
                } else {
                    Function<Message, Message> o = override;
                    reply.complete(o != null ? o.apply(clientRequest) : serve(clientRequest));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                reply.completeExceptionally(e);
            }
        });
        return reply;
    }

    private Message serve(Message request) {
        switch (request.type()) {
            case CLIENT_PUT: {
                ClientPut put = (ClientPut) request;
                data.computeIfAbsent(put.key(), k -> new TreeMap<>())
                        .put(put.value().sha256(), new Stored(put.value(), put.binding(), put.ttlSeconds()));
                return new PutReply(Status.OK, 3, "");
            }
            case CLIENT_GET: {
                ClientGet get = (ClientGet) request;
                List<ValueEntry> values = new ArrayList<>();
                for (Stored s : data.getOrDefault(get.key(), new TreeMap<>()).values()) {
                    if (values.size() < get.maxValues()) {
                        values.add(new ValueEntry(s.value(), s.ttlSeconds() * 1000L - 1));
                    }
                }
                return new GetReply(Status.OK, values, placemark, hops, "", cost, List.of());
            }
            case CLIENT_REMOVE: {
                ClientRemove remove = (ClientRemove) request;
                TreeMap<Bytes, Stored> values = data.get(remove.key());
                Stored s = values == null ? null : values.get(remove.valueHash());
                if (s == null) {
                    return new RemoveReply(Status.NOT_FOUND, "");
                }
                if (!SecretBinding.opens(remove.secret(), remove.key(), remove.valueHash(), s.binding())) {
                    return new RemoveReply(Status.FORBIDDEN, "");
                }
                values.remove(remove.valueHash());
                return new RemoveReply(Status.OK, "");
            }
            default:
                return new ErrorReply(Status.BAD_REQUEST, "not a client request: " + request.type());
        }
    }

    @SuppressWarnings("unchecked")
    <T extends Message> T lastRequest() {
        return (T) requests.get(requests.size() - 1);
    }

    @Override
    public CompletableFuture<NodeStatus> status() {
        return CompletableFuture.supplyAsync(() -> new NodeStatus(SELF, joined,
                List.of(new Contact(Id.ofName("left"), new Address("127.0.0.1", 4010)),
                        new Contact(Id.ofName("right"), new Address("::1", 4020))),
                List.of(15, 3), Collections.nCopies(18, new Contact(Id.ofName("far"), new Address("127.0.0.1", 4030))),
                data.values().stream().mapToLong(Map::size).sum()), loop);
    }

    /** What the admin listing answers: never, until a test completes it. */
    final CompletableFuture<List<StoredRecord>> listing = new CompletableFuture<>();

    @Override
    public CompletableFuture<List<StoredRecord>> localRecords() {
        return listing;
    }

    @Override
    public String scrapeMetrics() {
        return "# TYPE rattan_gets_total counter\nrattan_gets_total 7.0\n";
    }

    @Override
    public NodeConfig config() {
        return config;
    }

    @Override
    public void close() {
        loop.shutdownNow();
        try {
            loop.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
