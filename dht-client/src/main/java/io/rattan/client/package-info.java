/**
 * The Java client of Rattan: {@link io.rattan.client.RattanClient} puts, gets and removes values through one or more
 * gateways over the binary RPC; {@link io.rattan.client.OwnerKey} signs owned values;
 * {@link io.rattan.client.PermanentValue} keeps a value alive.
 *
 * <h2>Threads and failures</h2>
 * The client is thread-safe: any thread may call any method, concurrently. Its sockets, timers and retries run on its
 * Netty event-loop threads ({@code rattan-client-*}), but returned futures never complete there: they complete on the
 * client's completion executor, so the callbacks attached to them ({@code thenApply}, {@code thenRun}, ...) run off the
 * I/O threads and cannot stall the client's network work. The executor is the builder's {@link
 * io.rattan.client.RattanClient.Builder#executor executor}, by default a pool of the client's own of max(2, available
 * processors) daemon threads named {@code rattan-callback-*}, which {@link io.rattan.client.RattanClient#close()}
 * drains and stops. A callback may block (a {@code *Sync} call included), but it holds one of those threads while it
 * does: if every one is blocked, no future completes until one returns. A future completed before it is returned (a
 * call refused at once) runs callbacks on the thread that attaches them, as any completed {@link
 * java.util.concurrent.CompletableFuture} does.
 *
 * <p>A failed future completes exceptionally with a {@link io.rattan.client.RattanException} (so {@code join()} throws
 * it wrapped in a {@link java.util.concurrent.CompletionException}, {@code get()} in an {@link
 * java.util.concurrent.ExecutionException}); the blocking {@code *Sync} methods throw it directly. Cancelling a
 * returned future stops the call's retries.
 *

 *
 * <h2>Calls, attempts and failures</h2>
 * Every call of a {@link io.rattan.client.RattanClient} is sent to one gateway at a time over a long-lived TCP
 * connection (one per gateway, opened on first use, reopened after it closes, shared by all calls: requests are
 * multiplexed by request id). Calls take turns round-robin over the gateways, from a random start. When an attempt
 * fails with a transient status ({@link io.rattan.api.Status#UNAVAILABLE}, {@link
 * io.rattan.api.Status#TIMEOUT}, {@link io.rattan.api.Status#INTERNAL}), cannot connect, loses its
 * connection, or gets no reply within the attempt timeout, the call waits a random backoff and retries on the next
 * gateway (one the call has not tried yet, if any is available), up to {@link
 * io.rattan.client.RattanClient.Builder#maxRetries(int) maxRetries} times and never beyond the {@link
 * io.rattan.client.RattanClient.Builder#totalTimeout(java.time.Duration) total timeout}. A gateway that refused a
 * connection, or whose connection was lost, is suspended: calls avoid it as long as another is available, until a
 * connection to it opens again. The client probes it in the background, by opening a connection, at once after a lost
 * connection and after the backoff cap after a refusal, doubling the wait after each refusal up to 32 times the cap
 * (jittered), so that a killed gateway costs one probe now and then, not a retry of every call. A connection on which
 * nothing at all arrived during an attempt that timed out is closed, to be reopened on next use; the other attempts
 * pending on it fail with it, and go on to another gateway without spending a retry (once per gateway). When a call
 * fails, its message names each attempt's gateway and status. Final answers ({@link
 * io.rattan.api.Status#BAD_REQUEST}, {@link io.rattan.api.Status#TOO_LARGE}, {@link
 * io.rattan.api.Status#FORBIDDEN}) are never retried. Retrying a put is safe: a value's identity is its hash, so
 * storing it twice stores it once.
 *
 * <h2>Namespaces</h2>
 * A cluster may hold namespaces beside its default one: DHTs of their own, each with its own replication, storage and
 * limits, made by an operator ({@code PUT /admin/namespaces/{ns}}, docs/http-api.md). {@link
 * io.rattan.client.RattanClient#namespace(String) client.namespace("ns")} is a client of one: its puts, gets, removes,
 * owned values and watches are those of the client it came from, in the namespace, so a key there never sees the
 * values of the same key elsewhere. It shares the connections, threads, settings and metrics of the client it came
 * from, costs nothing to make, and closing either closes both. A namespace the gateway does not know fails each call
 * with {@code NOT_FOUND}. One-hop gets are the default namespace's only (the client's ring image names its replicas).
 *
 * <h2>Watches</h2>
 * {@link io.rattan.client.RattanClient#watch(io.rattan.api.Id, io.rattan.client.WatchListener)} watches a key
 * (with a {@link io.rattan.api.ValueFilter}, only one owner's values, or one owned value): the
 * {@link io.rattan.client.WatchListener} hears {@code onValue} for each value live when the watch began, then
 * {@code onReady} once, then {@code onValue} for each value put since (and each newer sequence of an owned value),
 * {@code onRemoved} and {@code onExpired} for values it heard that were removed or reached their TTL's end. The
 * watch is registered at one gateway at a time over the binary RPC ({@code CLIENT_WATCH}, whose events come back as
 * {@code WATCH_EVENT}s on the gateway's shared connection, many watches to a connection).
 *
 * <p>Guarantees: every put acknowledged after {@code onReady} reaches the listener, even when the watch's gateway
 * fails; each value reaches it once. When the gateway's connection fails, or the gateway ends the watch with a
 * transient status (its node stops), the watch registers again through the next gateway that is up, passing the
 * position of the last event it heard: the same gateway (when it comes back within a third of the watch lease) sends
 * exactly the events since; any other sends every live value again, of which the client hands over only those it
 * had not (or a newer sequence), and then tells as removed (or expired, when its TTL has run out) each value it had
 * handed over that the gateway no longer holds. A gateway or connection that serves its most watches ends a new one
 * at once ({@code onEnded} with {@link io.rattan.api.Status#RATE_LIMITED}); that and other final statuses end
 * the watch for good. {@link io.rattan.client.Watch#close()} ends it without an {@code onEnded}.
 *
 * <p>The listener is called on the client's completion executor, never on an event loop, one call at a time per
 * watch, in the watch's order; a listener that blocks delays only its own watch's events (and holds a thread of the
 * executor). Owned values are verified against their owners' signatures first, as a get's are.
 *
 * <h2>One-hop gets</h2>
 * With {@link io.rattan.api.GetOptions#oneHop()} the client routes the get itself, by its own image of the
 * ring: it sends each copy straight to the binary gateway of one of the key's replicas, so that the replica answers
 * at once (0 hops), the replica measured fastest first, the next copies and the hedges to the next replicas (a hedge
 * goes after 1.2 times the round trip measured to the replica before it, plus 5 ms). The image starts empty and
 * learns only from answers: every one-hop get asks the answering node to name the key's replicas and their gateways
 * ({@code wantHolders}), which add to and correct the image. Until it knows a key's replicas, and for a copy whose
 * replica fails (it is then forgotten), the get goes through the configured gateways as usual, so a one-hop get
 * never fails where a routed one would succeed. {@link io.rattan.api.GetOptions#gateways()} copies go to that
 * many replicas at once. The image is bounded (1,024 nodes, one connection each at most). This client never sets the
 * wire's {@code oneHop} flag, which asks a gateway to use <em>its</em> image (HTTP's {@code onehop=true}).
 *
 * <h2>Quorum gets</h2>
 * With {@link io.rattan.api.GetOptions#withQuorum(int)} each page is a quorum get: the first replica of the key
 * it reaches reads R replicas (itself included; R = ⌊k/2⌋+1 of the gateway's k when 0 is given), answers with their
 * merge (a removed value stays removed, an expired one is left out) and sends each replica that lacked a record the
 * merged one (read repair). A page that reached fewer than R replicas is still answered, with the merge of those it
 * reached, and {@link io.rattan.client.GetResult#partial()} is then true: check it when the read must have seen R
 * replicas. A quorum get cannot be iterative ({@link io.rattan.api.GetOptions} refuses it).
 *
 * <h2>Metrics</h2>
 * With a {@link io.rattan.client.RattanClient.Builder#meterRegistry registry}, every call is timed, all attempts
 * included, by the timer {@code rattan.client.requests} tagged {@code op} ({@code put}, {@code get}, {@code remove})
 * and {@code outcome} ({@code success}; {@code not_found} for a remove that found nothing; otherwise the lower-case
 * status of the failure, or {@code cancelled}). A multi-page get counts as one call. The counter
 * {@code rattan.client.retries} (tag {@code op}) counts retries, and the gauge {@code rattan.client.requests.inflight}
 * the calls in flight. The counter {@code rattan.client.get.hedges} counts hedge copies sent by hedged gets; the
 * counter {@code rattan.client.get.forged} the owned values a get dropped because their owner's signature did not
 * verify (every owned value is checked before a caller sees it).
 */
package io.rattan.client;
