package io.rattan.sim.experiment;

import io.rattan.api.Address;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.env.Cancellable;
import io.rattan.core.env.Transport;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.MembershipMessages.Ping;
import io.rattan.core.msg.MembershipMessages.Pong;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.net.Contact;
import io.rattan.core.virtual.VirtualWorld;
import io.rattan.sim.net.WideAreaLatencyModel;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Client processes and client gateways in the virtual world. A client on node i's host sends each request over the
 * simulated network to a node's gateway address, which hands it to that node's {@code handleClient} and sends the
 * answer back over the network, as the study's clients talked to their gateways. A client gives up on a request that
 * has had no answer after the timeout, which only happens when the network lost it.
 */
final class SimClients {

    private record Waiting(Consumer<Message> answer, Cancellable timer) {
    }

    private final VirtualWorld world;
    private final long timeoutNanos;
    private final Map<Integer, Transport> clientTransports = new HashMap<>();
    private final Map<Integer, Transport> gatewayTransports = new HashMap<>();
    // Looked up by request id only.
    private final Map<Long, Waiting> waiting = new HashMap<>();
    private long nextRequestId = 1;

    SimClients(VirtualWorld world, long timeoutNanos) {
        this.world = world;
        this.timeoutNanos = timeoutNanos;
        for (int i = 0; i < world.size(); i++) {
            addGateway(i);
        }
    }

    /** Opens the client gateway of node {@code node}, one that joined the world after these clients were made. */
    void addGateway(int node) {
        Address gateway = WideAreaLatencyModel.gatewayAddress(node);
        gatewayTransports.put(node, world.network().transportFor(gateway));
        world.network().listen(gateway, e -> serve(node, e));
    }

    /** How long a client waits for an answer by default. */
    long timeoutNanos() {
        return timeoutNanos;
    }

    /** Sends {@code request} from the client on {@code clientHost}'s host to {@code gateway}'s client port. */
    void send(int clientHost, int gateway, Message request, Consumer<Message> answer) {
        send(clientHost, gateway, request, timeoutNanos, answer);
    }

    /** As {@link #send(int, int, Message, Consumer)}, giving up after {@code giveUpNanos}. */
    void send(int clientHost, int gateway, Message request, long giveUpNanos, Consumer<Message> answer) {
        Transport from = clientTransports.computeIfAbsent(clientHost, this::openClient);
        long id = nextRequestId++;
        Cancellable timer = world.scheduler().schedule(giveUpNanos, () -> {
            Waiting w = waiting.remove(id);
            if (w != null) {
                w.answer().accept(new ErrorReply(Status.TIMEOUT, "client: no answer from gateway " + gateway));
            }
        });
        waiting.put(id, new Waiting(answer, timer));
        Contact self = new Contact(Id.ZERO, WideAreaLatencyModel.clientAddress(clientHost));
        from.send(WideAreaLatencyModel.gatewayAddress(gateway), new Envelope(self, id, request));
    }

    private Transport openClient(int host) {
        Address address = WideAreaLatencyModel.clientAddress(host);
        world.network().listen(address, this::answered);
        return world.network().transportFor(address);
    }

    private void serve(int node, Envelope e) {
        if (!world.isAlive(node)) {
            return;
        }
        Address client = e.sender().address();
        if (e.body() instanceof Ping) {
            // A client port answers a probe once the node has got to it, so the round trip includes its queue.
            gatewayTransports.get(node).send(client, new Envelope(null, e.requestId(), new Pong()));
            return;
        }
        world.node(node).handleClient(e.body(), reply -> gatewayTransports.get(node).send(client,
                new Envelope(null, e.requestId(), reply)));
    }

    private void answered(Envelope e) {
        Waiting w = waiting.remove(e.requestId());
        if (w != null) {
            w.timer().cancel();
            w.answer().accept(e.body());
        }
    }
}
