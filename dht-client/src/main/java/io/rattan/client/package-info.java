/**
 * The Java client of Rattan: {@link io.rattan.client.RattanClient} puts, gets and removes values through one or more
 * gateways over the binary RPC; {@link io.rattan.client.OwnerKey} signs owned values;
 * {@link io.rattan.client.PermanentValue} keeps a value alive.
 *
 * <h2>One-hop gets</h2>
 * With {@link io.rattan.core.msg.GetOptions#oneHop()} the client routes the get itself, by its own image of the
 * ring: it sends each copy straight to the binary gateway of one of the key's replicas, so that the replica answers
 * at once (0 hops), the replica measured fastest first, the next copies and the hedges to the next replicas (a hedge
 * goes after 1.2 times the round trip measured to the replica before it, plus 5 ms). The image starts empty and
 * learns only from answers: every one-hop get asks the answering node to name the key's replicas and their gateways
 * ({@code wantHolders}), which add to and correct the image. Until it knows a key's replicas, and for a copy whose
 * replica fails (it is then forgotten), the get goes through the configured gateways as usual, so a one-hop get
 * never fails where a routed one would succeed. {@link io.rattan.core.msg.GetOptions#gateways()} copies go to that
 * many replicas at once. The image is bounded (1,024 nodes, one connection each at most). This client never sets the
 * wire's {@code oneHop} flag, which asks a gateway to use <em>its</em> image (HTTP's {@code onehop=true}).
 *
 * <h2>Quorum gets</h2>
 * With {@link io.rattan.core.msg.GetOptions#withQuorum(int)} each page is a quorum get: the first replica of the key
 * it reaches reads R replicas (itself included; R = ⌊k/2⌋+1 of the gateway's k when 0 is given), answers with their
 * merge (a removed value stays removed, an expired one is left out) and sends each replica that lacked a record the
 * merged one (read repair). A page that reached fewer than R replicas is still answered, with the merge of those it
 * reached, and {@link io.rattan.client.GetResult#partial()} is then true: check it when the read must have seen R
 * replicas. A quorum get cannot be iterative ({@link io.rattan.core.msg.GetOptions} refuses it).
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
