package io.rattan.sim.experiment;

import io.rattan.api.Id;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.MembershipMessages.Ping;
import io.rattan.core.msg.MembershipMessages.Pong;
import io.rattan.core.msg.Message;
import io.rattan.core.net.Contact;
import io.rattan.core.virtual.VirtualWorld;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * One-hop copies of a get, each sent straight to a replica's client port rather than through a gateway, and passed
 * on along the client's targets while they fail. Touched only from the simulation's one thread.
 */
final class DirectCopies {

    private static final long DIRECT_ATTEMPT_NANOS = OneHopClient.DIRECT_ATTEMPT_NANOS;

    private final TableWorld w;
    // Looked up by id only.
    private final Map<Id, Integer> indexById = new HashMap<>();

    DirectCopies(TableWorld w) {
        this.w = w;
    }

    /**
     * A one-hop copy: straight to {@code targets[from]}'s client port; the answer updates the client's image. A
     * target that fails, or does not answer within {@link #DIRECT_ATTEMPT_NANOS} (it left, crashed or is very slow),
     * passes the copy on to the next target; the client's own node, last unless it is a replica, routes it as any
     * gateway would, has the whole client timeout and ends the chain.
     */
    void send(OneHopClient client, List<Contact> targets, int from, ClientGet get, Consumer<Message> answer) {
        VirtualWorld world = w.world();
        SimClients clients = w.clients();
        Contact target = targets.get(from);
        // The client's own node ends the chain wherever it stands (first, when it is a replica itself).
        boolean last = from == targets.size() - 1 || indexOf(world, target) == client.host();
        long sent = world.scheduler().nanoTime();
        long giveUp = last ? clients.timeoutNanos() : DIRECT_ATTEMPT_NANOS;
        clients.send(client.host(), indexOf(world, target), get, giveUp, m -> {
            client.answered(target, m, world.scheduler().nanoTime() - sent);
            // The nodes an answer names are probed once each, so the next get for their keys can go to the nearest
            // replica; a probe carries this get's cause, so its cost is this get's.
            for (Contact c : client.toProbe(m)) {
                long probeSent = world.scheduler().nanoTime();
                clients.send(client.host(), indexOf(world, c), new Ping(), pong -> {
                    if (pong instanceof Pong) {
                        client.probed(c, world.scheduler().nanoTime() - probeSent);
                    }
                });
            }
            if (!OpenDhtTable.isOk(m) && !last) {
                send(client, targets, from + 1, get, answer);
                return;
            }
            answer.accept(m);
        });
    }

    private int indexOf(VirtualWorld world, Contact c) {
        // Nodes that joined since the last look are added as they are first asked for.
        for (int i = indexById.size(); i < world.size(); i++) {
            indexById.put(world.contact(i).id(), i);
        }
        return indexById.get(c.id());
    }
}
