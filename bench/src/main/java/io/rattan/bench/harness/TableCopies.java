package io.rattan.bench.harness;

import io.rattan.api.Id;
import io.rattan.core.msg.MembershipMessages.Ping;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.net.Contact;
import io.rattan.sim.experiment.OneHopClient;
import io.rattan.sim.experiment.OpenDhtTable;
import io.rattan.sim.experiment.RoundTally;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * How a {@code bench table} get's copies travel, and what they cost: a routed copy goes to one node's gateway; a
 * one-hop copy straight to a replica's gateway, passed on along the client's targets while they fail, as the
 * simulator's {@code DirectCopies} does. Every message a copy causes that the client can know of is charged to the
 * get's mode: the request and the reply on the client connection (encoded, plus headers), and the cost the nodes
 * counted in band on the copy's path ({@link io.rattan.api.Cost}), for every copy that answers, winner or
 * not, and the probes a one-hop answer sets off. Confined to the table's loop.
 */
final class TableCopies {

    /** Charges nothing: the warm-up's gets and the oracle's probes are no mode's. */
    static final int UNCHARGED = -1;

    private final GatewayLinks links;
    private final RoundTally tally;
    private final ClientWan wan;
    private final long clientTimeoutNanos;
    // Looked up by id only.
    private final Map<Id, Integer> indexById = new HashMap<>();

    TableCopies(GatewayLinks links, RoundTally tally, List<Contact> contacts, ClientWan wan, long clientTimeoutNanos) {
        this.links = links;
        this.tally = tally;
        this.wan = wan;
        this.clientTimeoutNanos = clientTimeoutNanos;
        for (int i = 0; i < contacts.size(); i++) {
            indexById.put(contacts.get(i).id(), i);
        }
    }

    long clientTimeoutNanos() {
        return clientTimeoutNanos;
    }

    /**
     * Sends {@code request} from a client on node {@code from}'s host to {@code node}'s gateway within the client
     * timeout, charging {@code mode}.
     */
    void send(int mode, int from, int node, Message request, Consumer<Message> answer) {
        send(mode, from, node, request, clientTimeoutNanos, answer);
    }

    /**
     * The request crosses the client's leg to the gateway before it is sent, and the answer the leg back before the
     * client sees it; the client gives up {@code giveUpNanos} after it sent, as the simulator's does. An answer the
     * client made up itself (no answer, no connection) crosses nothing.
     */
    private void send(int mode, int from, int node, Message request, long giveUpNanos, Consumer<Message> answer) {
        charge(mode, 1, links.wireBytes(request));
        long out = wan.legNanos(from, node);
        later(out, () -> links.send(node, request, Math.max(1, giveUpNanos - out), reply -> {
            if (isLocal(reply)) {
                answer.accept(reply);
                return;
            }
            later(wan.legNanos(node, from), () -> {
                if (reply instanceof GetReply g) {
                    // The nodes' in-band count, then the gateway's reply to the client.
                    charge(mode, g.cost().messages() + 1L, g.cost().bytes() + links.wireBytes(reply));
                } else {
                    charge(mode, 1, links.wireBytes(reply));
                }
                answer.accept(reply);
            });
        }));
    }

    private void later(long nanos, Runnable task) {
        if (nanos <= 0) {
            task.run();
        } else {
            links.loop().schedule(task, nanos, TimeUnit.NANOSECONDS);
        }
    }

    /**
     * A one-hop copy: straight to {@code targets[from]}'s gateway; the answer teaches the client. A target that
     * fails, or does not answer within {@link OneHopClient#DIRECT_ATTEMPT_NANOS}, passes the copy on to the next;
     * the client's own node ends the chain wherever it stands and has the whole client timeout.
     */
    void direct(int mode, OneHopClient client, List<Contact> targets, int from, Message get,
                Consumer<Message> answer) {
        Contact target = targets.get(from);
        int node = indexOf(target);
        boolean last = from == targets.size() - 1 || node == client.host();
        long sent = System.nanoTime();
        long giveUp = last ? clientTimeoutNanos : OneHopClient.DIRECT_ATTEMPT_NANOS;
        send(mode, client.host(), node, get, giveUp, m -> {
            client.answered(target, m, System.nanoTime() - sent);
            for (Contact c : client.toProbe(m)) {
                probe(mode, c, client);
            }
            if (!OpenDhtTable.isOk(m) && !last) {
                direct(mode, client, targets, from + 1, get, answer);
                return;
            }
            answer.accept(m);
        });
    }

    /**
     * Measures the round trip to {@code c}'s gateway: a gateway refuses a ping at once (it serves client requests
     * only), so the answer measures the connection, not the node's queue as the simulator's probe does.
     */
    private void probe(int mode, Contact c, OneHopClient client) {
        long sent = System.nanoTime();
        send(mode, client.host(), indexOf(c), new Ping(), reply -> {
            if (!isLocal(reply)) {
                client.probed(c, System.nanoTime() - sent);
            }
        });
    }

    /**
     * Pings node {@code node}'s gateway from a client on node {@code from}'s host; {@code rttNanos} gets the round
     * trip, or -1 if it did not answer.
     */
    void ping(int from, int node, LongConsumer rttNanos) {
        long sent = System.nanoTime();
        send(UNCHARGED, from, node, new Ping(),
                reply -> rttNanos.accept(isLocal(reply) ? -1 : System.nanoTime() - sent));
    }

    int indexOf(Contact c) {
        Integer i = indexById.get(c.id());
        if (i == null) {
            throw new IllegalStateException("an answer named node " + c + ", which is not in the cluster's "
                    + "gateways.txt");
        }
        return i;
    }

    /** An error the client made up itself (no answer, no connection): nothing came over the wire. */
    static boolean isLocal(Message m) {
        return m instanceof ErrorReply e && e.detail() != null && e.detail().startsWith("client:");
    }

    private void charge(int mode, long msgs, long bytes) {
        if (mode != UNCHARGED) {
            tally.charge(mode, msgs, bytes);
        }
    }
}
