package io.rattan.core.node;

import io.rattan.api.Address;
import io.rattan.api.Id;
import io.rattan.core.msg.MembershipMessages.Ping;
import io.rattan.core.net.Contact;
import io.rattan.core.node.SentLog.Sent;
import io.rattan.core.virtual.VirtualScheduler;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;

/**
 * A node's membership built from its parts, without a {@link Node} or a network: the outbox sends into a list, the
 * test feeds answers back as {@link Node#receive} would (the verified sender is heard, then the reply is matched), and
 * moves time by hand. The set-up {@link LostContactsTest}, {@link SecondHandContactsTest} and {@link SuspectProbeTest}
 * share; each test starts on a new one.
 */
abstract class MembershipRig {

    static final long SECOND = 1_000_000_000L;
    static final Id SELF = Id.fromHex("8000000000000000000000000000000000000000");

    List<Sent> sent;
    /** The members that answered again after a cut, in order ({@link Membership}'s {@code answersResumed}). */
    List<Id> resumed;
    VirtualScheduler scheduler;
    Outbox outbox;
    Membership members;
    NodeConfig config;

    @BeforeEach
    void build() {
        resumed = new ArrayList<>();
        scheduler = new VirtualScheduler(1_700_000_000_000L);
        config = NodeConfig.defaults();
        SentLog log = new SentLog();
        sent = log.all();
        HandBuiltNode node = HandBuiltNode.of(at(SELF, "10.0.0.1", 4000), config, scheduler, NodeListener.NONE, log,
                () -> { }, resumed::add);
        members = node.members();
        outbox = node.outbox();
    }

    /** An id {@code offset} steps of 2^100 clockwise of this node (negative: counter-clockwise). */
    static Id near(long offset) {
        return offset >= 0 ? SELF.plus(new Id(0, offset << 36, 0)) : SELF.minus(new Id(0, -offset << 36, 0));
    }

    static Contact at(Id id, String host, int port) {
        return new Contact(id, new Address(host, port));
    }

    List<Sent> pings() {
        return sent.stream().filter(s -> s.envelope().body() instanceof Ping).toList();
    }

    List<Sent> pingsTo(Address a) {
        return pings().stream().filter(s -> s.to().equals(a)).toList();
    }
}
