package io.rattan.core.codec;

import static io.rattan.core.codec.MessageCodec.HASH_BYTES_MAX;
import static io.rattan.core.codec.MessageCodec.SECRET_BYTES_MAX;
import static io.rattan.core.codec.MessageCodec.VALUE_BYTES_MAX;

import io.rattan.api.Cost;
import io.rattan.core.msg.ClientMessages.IterativeGet;
import io.rattan.core.msg.ClientMessages.IterativeGetReply;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.MessageType;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.GetRequest;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.msg.RequestMessages.PutRequest;
import io.rattan.core.msg.RequestMessages.RemoveReply;
import io.rattan.core.msg.RequestMessages.RemoveRequest;
import io.rattan.core.msg.RequestMessages.ValueEntry;
import java.util.List;

/**
 * The bodies of the requests a node routes through the overlay on a client's behalf (put, get, remove, and the
 * iterative get a client drives itself) and of their replies. These carry values, origins, hop counts and costs; they
 * are the messages whose fields grow with each feature of the client API, so they are kept apart from the overlay's
 * upkeep and the replicas' repair.
 */
final class RequestBodies implements BodyCodec {

    static final RequestBodies INSTANCE = new RequestBodies();

    // The smallest encoding of a ValueEntry, so that a claimed count can be checked against the bytes left.
    private static final int VALUE_ENTRY_BYTES_MIN = 4 + 8 + 1;

    private RequestBodies() {
    }

    @Override
    public void write(FrameWriter w, Message body) {
        switch (body.type()) {
            case PUT_REQUEST -> {
                PutRequest m = (PutRequest) body;
                w.id(m.key(), "key");
                w.bytes(m.value(), VALUE_BYTES_MAX, "value");
                w.nonNegativeI32(m.ttlSeconds(), "ttlSeconds");
                w.nonNegativeI64(m.expiresAtMillis(), "expiresAtMillis");
                w.bytes(m.binding(), HASH_BYTES_MAX, "binding");
                w.contact(m.origin(), "origin");
                w.i64(m.originRequestId());
                w.hops(m.hops());
                w.stamp(m.stamp());
                w.condition(m.condition());
                if (w.version() >= MessageCodec.VERSION_ORIGIN_PROOFS) {
                    w.proof(m.originProof());
                }
            }
            case GET_REQUEST -> {
                GetRequest m = (GetRequest) body;
                w.id(m.key(), "key");
                w.routing(m.routing());
                w.nonNegativeI32(m.maxValues(), "maxValues");
                w.bytes(m.placemark(), HASH_BYTES_MAX, "placemark");
                w.contact(m.origin(), "origin");
                w.i64(m.originRequestId());
                w.hops(m.hops());
                w.bool(m.wantHolders());
                writeCost(w, m.cost());
                w.nonNegativeI32(m.readQuorum(), "readQuorum");
                w.filter(m.filter());
            }
            case REMOVE_REQUEST -> {
                RemoveRequest m = (RemoveRequest) body;
                w.id(m.key(), "key");
                w.bytes(m.valueHash(), HASH_BYTES_MAX, "valueHash");
                w.bytes(m.secret(), SECRET_BYTES_MAX, "secret");
                w.nonNegativeI32(m.ttlSeconds(), "ttlSeconds");
                w.contact(m.origin(), "origin");
                w.i64(m.originRequestId());
                w.hops(m.hops());
            }
            case PUT_REPLY -> {
                PutReply m = (PutReply) body;
                w.status(m.status());
                w.nonNegativeI32(m.replicas(), "replicas");
                w.string(m.detail(), "detail");
                w.optionalLong(m.currentSeq());
            }
            case GET_REPLY -> {
                GetReply m = (GetReply) body;
                w.status(m.status());
                writeValueEntries(w, m.values());
                w.bytes(m.placemark(), HASH_BYTES_MAX, "placemark");
                w.hops(m.hops());
                w.string(m.detail(), "detail");
                writeCost(w, m.cost());
                w.contacts(m.holders(), "holders");
                w.nonNegativeI32(m.replicasRead(), "replicasRead");
            }
            case ITERATIVE_GET -> {
                IterativeGet m = (IterativeGet) body;
                w.id(m.key(), "key");
                w.nonNegativeI32(m.maxValues(), "maxValues");
                w.bytes(m.placemark(), HASH_BYTES_MAX, "placemark");
                w.bool(m.wantHolders());
                w.filter(m.filter());
            }
            case ITERATIVE_GET_REPLY -> {
                IterativeGetReply m = (IterativeGetReply) body;
                w.status(m.status());
                w.bool(m.answered());
                writeValueEntries(w, m.values());
                w.bytes(m.placemark(), HASH_BYTES_MAX, "placemark");
                w.contacts(m.contacts(), "contacts");
            }
            case REMOVE_REPLY -> {
                RemoveReply m = (RemoveReply) body;
                w.status(m.status());
                w.string(m.detail(), "detail");
            }
            default -> throw BodyCodec.notInFamily(body.type(), RequestBodies.class);
        }
    }

    @Override
    public Message read(FrameReader r, MessageType type) {
        return switch (type) {
            case PUT_REQUEST -> new PutRequest(r.id("key"), r.bytes(VALUE_BYTES_MAX, "value"),
                    r.nonNegativeI32("ttlSeconds"), r.nonNegativeI64("expiresAtMillis"),
                    r.bytes(HASH_BYTES_MAX, "binding"), r.contact("origin"), r.i64("originRequestId"), r.hops(),
                    r.stamp(), r.condition(), r.version() >= MessageCodec.VERSION_ORIGIN_PROOFS ? r.proof() : null);
            case GET_REQUEST -> new GetRequest(r.id("key"), r.routing(), r.nonNegativeI32("maxValues"),
                    r.bytes(HASH_BYTES_MAX, "placemark"), r.contact("origin"), r.i64("originRequestId"), r.hops(),
                    r.bool("wantHolders"), readCost(r), r.nonNegativeI32("readQuorum"), r.filter());
            case REMOVE_REQUEST -> new RemoveRequest(r.id("key"), r.bytes(HASH_BYTES_MAX, "valueHash"),
                    r.bytes(SECRET_BYTES_MAX, "secret"), r.nonNegativeI32("ttlSeconds"), r.contact("origin"),
                    r.i64("originRequestId"), r.hops());
            case PUT_REPLY -> new PutReply(r.status(), r.nonNegativeI32("replicas"), r.string("detail"),
                    r.optionalLong("currentSeq"));
            case GET_REPLY -> new GetReply(r.status(), readValueEntries(r), r.bytes(HASH_BYTES_MAX, "placemark"),
                    r.hops(), r.string("detail"), readCost(r), r.contacts("holders"),
                    r.nonNegativeI32("replicasRead"));
            case ITERATIVE_GET -> new IterativeGet(r.id("key"), r.nonNegativeI32("maxValues"),
                    r.bytes(HASH_BYTES_MAX, "placemark"), r.bool("wantHolders"), r.filter());
            case ITERATIVE_GET_REPLY -> new IterativeGetReply(r.status(), r.bool("answered"), readValueEntries(r),
                    r.bytes(HASH_BYTES_MAX, "placemark"), r.contacts("contacts"));
            case REMOVE_REPLY -> new RemoveReply(r.status(), r.string("detail"));
            default -> throw BodyCodec.notInFamily(type, RequestBodies.class);
        };
    }

    private static void writeCost(FrameWriter w, Cost cost) {
        w.nonNegativeI32(cost.messages(), "cost.messages");
        w.nonNegativeI64(cost.bytes(), "cost.bytes");
    }

    private static Cost readCost(FrameReader r) {
        return new Cost(r.nonNegativeI32("cost.messages"), r.nonNegativeI64("cost.bytes"));
    }

    private static void writeValueEntries(FrameWriter w, List<ValueEntry> values) {
        w.list(values, "values", (lw, e) -> {
            lw.bytes(e.value(), VALUE_BYTES_MAX, "value");
            lw.nonNegativeI64(e.ttlRemainingMillis(), "ttlRemainingMillis");
            lw.stamp(e.stamp());
        });
    }

    private static List<ValueEntry> readValueEntries(FrameReader r) {
        return r.list(VALUE_ENTRY_BYTES_MIN, "values",
                lr -> new ValueEntry(lr.bytes(VALUE_BYTES_MAX, "value"), lr.nonNegativeI64("ttlRemainingMillis"),
                        lr.stamp()));
    }
}
