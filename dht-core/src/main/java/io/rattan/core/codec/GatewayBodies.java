package io.rattan.core.codec;

import static io.rattan.core.codec.MessageCodec.HASH_BYTES_MAX;
import static io.rattan.core.codec.MessageCodec.SECRET_BYTES_MAX;
import static io.rattan.core.codec.MessageCodec.VALUE_BYTES_MAX;

import io.rattan.api.Bytes;
import io.rattan.api.Consistency;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.RoutingMode;
import io.rattan.api.ValueFilter;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.ClientMessages.ClientRemove;
import io.rattan.core.msg.ClientMessages.ClientRing;
import io.rattan.core.msg.ClientMessages.RingReply;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.MessageType;
import io.rattan.core.msg.RequestMessages.ErrorReply;

/**
 * The bodies a client sends a node's binary gateway (put, get, remove, with the client's options; the ring request
 * and its page of nodes), and the error reply any request may get when it cannot be served at all (a gateway's
 * rate limit or quota, a node's overload). These are the client protocol's own messages, which a node turns into the
 * routed requests of {@link RequestBodies}; they change with the client API and its compatibility promises, not with
 * the overlay, hence a class of their own.
 */
final class GatewayBodies implements BodyCodec {

    static final GatewayBodies INSTANCE = new GatewayBodies();

    private GatewayBodies() {
    }

    @Override
    public void write(FrameWriter w, Message body) {
        switch (body.type()) {
            case CLIENT_PUT -> {
                ClientPut m = (ClientPut) body;
                w.id(m.key(), "key");
                w.bytes(m.value(), VALUE_BYTES_MAX, "value");
                w.nonNegativeI32(m.ttlSeconds(), "ttlSeconds");
                w.bytes(m.binding(), HASH_BYTES_MAX, "binding");
                w.stamp(m.stamp());
                w.condition(m.condition());
            }
            case CLIENT_GET -> {
                // Gateways and hedge do not travel: a binary client races and hedges itself (ClientMessages.ClientGet).
                ClientGet m = (ClientGet) body;
                GetOptions o = m.options();
                w.id(m.key(), "key");
                w.routing(o.routing());
                w.nonNegativeI32(m.maxValues(), "maxValues");
                w.bytes(m.placemark(), HASH_BYTES_MAX, "placemark");
                w.nonNegativeI32(o.parallelism(), "parallelism");
                w.bool(m.wantHolders());
                w.bool(o.oneHop());
                w.consistency(o.consistency());
                w.nonNegativeI32(o.readReplicas(), "readReplicas");
                w.filter(o.filter());
            }
            case CLIENT_REMOVE -> {
                ClientRemove m = (ClientRemove) body;
                w.id(m.key(), "key");
                w.bytes(m.valueHash(), HASH_BYTES_MAX, "valueHash");
                w.bytes(m.secret(), SECRET_BYTES_MAX, "secret");
                w.nonNegativeI32(m.ttlSeconds(), "ttlSeconds");
            }
            case CLIENT_RING -> {
                ClientRing m = (ClientRing) body;
                w.bytes(m.placemark(), HASH_BYTES_MAX, "placemark");
                w.nonNegativeI32(m.maxNodes(), "maxNodes");
            }
            case RING_REPLY -> {
                RingReply m = (RingReply) body;
                w.contacts(m.nodes(), "nodes");
                w.bytes(m.placemark(), HASH_BYTES_MAX, "placemark");
                w.nonNegativeI32(m.replicas(), "replicas");
            }
            case ERROR_REPLY -> {
                ErrorReply m = (ErrorReply) body;
                w.status(m.status());
                w.string(m.detail(), "detail");
                w.nonNegativeI32(m.retryAfterMillis(), "retryAfterMillis");
            }
            default -> throw BodyCodec.notInFamily(body.type(), GatewayBodies.class);
        }
    }

    @Override
    public Message read(FrameReader r, MessageType type) {
        return switch (type) {
            case CLIENT_PUT -> new ClientPut(r.id("key"), r.bytes(VALUE_BYTES_MAX, "value"),
                    r.nonNegativeI32("ttlSeconds"), r.bytes(HASH_BYTES_MAX, "binding"), r.stamp(), r.condition());
            case CLIENT_GET -> readClientGet(r);
            case CLIENT_REMOVE -> new ClientRemove(r.id("key"), r.bytes(HASH_BYTES_MAX, "valueHash"),
                    r.bytes(SECRET_BYTES_MAX, "secret"), r.nonNegativeI32("ttlSeconds"));
            case CLIENT_RING -> new ClientRing(r.bytes(HASH_BYTES_MAX, "placemark"), r.nonNegativeI32("maxNodes"));
            case RING_REPLY -> new RingReply(r.contacts("nodes"), r.bytes(HASH_BYTES_MAX, "placemark"),
                    r.nonNegativeI32("replicas"));
            case ERROR_REPLY -> new ErrorReply(r.status(), r.string("detail"), r.nonNegativeI32("retryAfterMillis"));
            default -> throw BodyCodec.notInFamily(type, GatewayBodies.class);
        };
    }

    /** A get's options as the wire carries them; a combination {@link GetOptions} refuses is a malformed frame. */
    private static ClientGet readClientGet(FrameReader r) {
        Id key = r.id("key");
        RoutingMode routing = r.routing();
        int maxValues = r.nonNegativeI32("maxValues");
        Bytes placemark = r.bytes(HASH_BYTES_MAX, "placemark");
        int parallelism = r.nonNegativeI32("parallelism");
        boolean wantHolders = r.bool("wantHolders");
        boolean oneHop = r.bool("oneHop");
        Consistency consistency = r.consistency();
        int readReplicas = r.nonNegativeI32("readReplicas");
        ValueFilter filter = r.filter();
        GetOptions options;
        try {
            options = GetOptions.builder().routing(routing).parallelism(parallelism).oneHop(oneHop)
                    .consistency(consistency, readReplicas).filter(filter).build();
        } catch (IllegalArgumentException e) {
            throw new CodecException("get options: " + e.getMessage());
        }
        return new ClientGet(key, maxValues, placemark, wantHolders, options);
    }
}
