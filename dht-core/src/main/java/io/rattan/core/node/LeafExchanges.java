package io.rattan.core.node;

import io.rattan.core.msg.MembershipMessages.LeafExchange;
import io.rattan.core.msg.MembershipMessages.LeafExchangeReply;
import io.rattan.core.net.Contact;
import java.util.List;
import java.util.function.Consumer;

/**
 * Leaf-set exchange: once a maintenance period with one member in turn, and with the farthest member on each side
 * when a member dies (its leaf set reaches beyond ours). The contacts an exchange names are second hand: they go to
 * {@code learn}, which probes them before they may enter ({@link SecondHandProbes}). Owned by the node's event loop.
 */
final class LeafExchanges {

    private final NodeContext ctx;
    private final LeafSet leafSet;
    private final Peers peers;
    private final Consumer<Contact> learn;
    private final Consumer<Contact> timedOut;
    private int turn;

    /** {@code learn} takes each contact a peer names; {@code timedOut} hears of a member that did not answer. */
    LeafExchanges(NodeContext ctx, LeafSet leafSet, Peers peers, Consumer<Contact> learn, Consumer<Contact> timedOut) {
        this.ctx = ctx;
        this.leafSet = leafSet;
        this.peers = peers;
        this.learn = learn;
        this.timedOut = timedOut;
    }

    /** This period's exchange, with the next member in turn. */
    void round() {
        Contact target = nextTarget();
        if (target != null) {
            exchangeWith(target);
        }
    }

    /**
     * One exchange per period, in turn with the nearest clockwise member, the nearest counter-clockwise member and a
     * random member (the nearest not suspected: a suspect is probed already and would hide the member beyond it).
     * Each immediate neighbour is asked every third period, and asks us as often: a crashed neighbour is found at
     * most two periods later than with all three every period, at a third of the exchanges and contacts to re-check.
     */
    private Contact nextTarget() {
        List<Contact> all = leafSet.members();
        if (all.isEmpty()) {
            return null;
        }
        int now = turn;
        turn = (turn + 1) % 3;
        List<Contact> side = now == 0 ? leafSet.clockwise() : now == 1 ? leafSet.counterClockwise() : List.of();
        Contact near = side.stream().filter(c -> !peers.isSuspect(c.id())).findFirst().orElse(null);
        return near != null ? near : all.get(ctx.random().nextInt(all.size()));
    }

    /** A member left the leaf set: refill from the farthest member on each side, whose leaf set reaches beyond ours. */
    void refill() {
        List<Contact> cw = leafSet.clockwise();
        List<Contact> ccw = leafSet.counterClockwise();
        if (!cw.isEmpty()) {
            exchangeWith(cw.get(cw.size() - 1));
        }
        if (!ccw.isEmpty() && (cw.isEmpty() || !ccw.get(ccw.size() - 1).equals(cw.get(cw.size() - 1)))) {
            exchangeWith(ccw.get(ccw.size() - 1));
        }
    }

    void exchangeWith(Contact c) {
        ctx.outbox().request(c, new LeafExchange(leafSet.members()), peers.rtoNanos(c.id()), ReplyHandler.of(
                reply -> {
                    if (reply.body() instanceof LeafExchangeReply r) {
                        r.leafSet().forEach(learn);
                    }
                },
                () -> timedOut.accept(c)));
    }

    /** A neighbour's exchange: learn its members, answer with ours. */
    LeafExchangeReply answer(LeafExchange m) {
        m.leafSet().forEach(learn);
        return new LeafExchangeReply(leafSet.members());
    }
}
