package io.rattan.client;

import io.rattan.api.Bytes;
import io.rattan.api.Cost;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.RequestMessages.GetReply;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;

/**
 * Follows placemarks for one {@link RattanClient#get(Id, GetOptions)}: fetches page after page, each a call (or a
 * {@link GetRacer race}) of its own, all under one deadline, and merges them into one {@link GetResult}, at most
 * {@link RattanClient#GET_PAGES_MAX} pages. Its own class because paging has state of its own (the values so far,
 * the page in flight) that lives as long as one get.
 */
final class Pager {

    private final ClientRuntime runtime;
    private final GetRacer racer;
    private final Id key;
    private final GetOptions options;
    private final Scope scope;
    private final long deadlineNanos;
    private final CompletableFuture<GetResult> result = new CompletableFuture<>();
    // Pages complete one after another, each on the loop after the previous; the chain publishes these fields.
    private final Map<Object, GetResult.Value> values = new LinkedHashMap<>();
    private int hops;
    private int pages;
    private Cost cost = Cost.ZERO;
    private boolean partial;
    private volatile CompletableFuture<GetResult> page;

    Pager(ClientRuntime runtime, GetRacer racer, Id key, GetOptions options, Scope scope, long deadlineNanos) {
        if (options.oneHop() && !scope.isDefault()) {
            // The client's ring image names the default namespace's replicas, not another's.
            throw new IllegalArgumentException("one-hop gets read the default namespace's replicas; namespace '"
                    + scope.name() + "' is read through gateways");
        }
        this.runtime = runtime;
        this.scope = scope;
        this.racer = racer;
        this.key = key;
        this.options = options;
        this.deadlineNanos = deadlineNanos;
        result.whenComplete((r, e) -> {
            CompletableFuture<GetResult> p = page;
            if (result.isCancelled() && p != null) {
                p.cancel(false);
            }
        });
    }

    /** Fetches the first page, and the next ones as they come; cancelling the returned future stops the paging. */
    CompletableFuture<GetResult> start() {
        fetch(Bytes.EMPTY);
        return result;
    }

    private void fetch(Bytes placemark) {
        // Each copy goes to its gateway alone: this client races, hedges and routes one-hop itself. A one-hop get asks
        // every answer for the key's holders, which teach the client's image.
        ClientGet request = new ClientGet(key, RattanClient.GET_PAGE_VALUES, placemark, options.oneHop(),
                options.oneCopy());
        CompletableFuture<GetResult> p;
        if (options.maxCopies() == 1 && !options.oneHop()) {
            // One copy needs no race: a plain call.
            p = runtime.submit(Op.GET, scope.wrap(request), deadlineNanos, Replies::getPage);
        } else {
            CompletableFuture<GetReply> raced = racer.race(request, scope, options, deadlineNanos);
            p = raced.thenApply(Replies::getPage);
            p.whenComplete((r, e) -> {
                if (e instanceof CancellationException) {
                    raced.cancel(false);
                }
            });
        }
        page = p;
        if (result.isDone()) {
            p.cancel(false);
            return;
        }
        p.whenComplete((r, e) -> {
            if (e != null) {
                result.completeExceptionally(Failures.asRattan(e, Op.GET));
            } else {
                onPage(placemark, r);
            }
        });
    }

    /**
     * What makes a value the same one on two pages: its hash, and for an owned value its whole stamp too, since two
     * owners (or value ids) may hold the same bytes and a forged stamp must not take a real one's place before the
     * signatures are checked ({@link OwnedReads}, which also keeps one version per owner's value).
     */
    private static Object identity(GetResult.Value v) {
        return v.isOwned() ? List.of(v.owner(), v.valueHash()) : v.valueHash();
    }

    private void onPage(Bytes asked, GetResult r) {
        pages++;
        hops += r.hops();
        cost = cost.plus(r.cost());
        partial |= r.partial();
        for (GetResult.Value v : r.values()) {
            values.putIfAbsent(identity(v), v);
        }
        Bytes next = r.placemark();
        if (next.isEmpty() || pages >= RattanClient.GET_PAGES_MAX) {
            result.complete(new GetResult(new ArrayList<>(values.values()), hops, pages, next, cost, partial));
        } else if (next.equals(asked)) {
            result.completeExceptionally(new RattanException(Status.INTERNAL,
                    "get: the gateway returned the placemark it was given; paging would never end"));
        } else {
            fetch(next);
        }
    }
}
