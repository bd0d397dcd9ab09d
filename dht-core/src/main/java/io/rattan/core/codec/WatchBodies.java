package io.rattan.core.codec;

import static io.rattan.core.codec.MessageCodec.HASH_BYTES_MAX;
import static io.rattan.core.codec.MessageCodec.VALUE_BYTES_MAX;

import io.rattan.core.msg.Message;
import io.rattan.core.msg.MessageType;
import io.rattan.core.msg.RequestMessages.ValueEntry;
import io.rattan.core.msg.WatchKind;
import io.rattan.core.msg.WatchMessages.ClientUnwatch;
import io.rattan.core.msg.WatchMessages.ClientWatch;
import io.rattan.core.msg.WatchMessages.Watch;
import io.rattan.core.msg.WatchMessages.WatchAck;
import io.rattan.core.msg.WatchMessages.WatchChange;
import io.rattan.core.msg.WatchMessages.WatchEvent;

/**
 * The bodies of watches (protocol version 10): a gateway's registration at a key's replicas and their answers and
 * news ({@code WATCH}, {@code WATCH_ACK}, {@code WATCH_CHANGE}), and a client's watch at its gateway and the events
 * pushed to it ({@code CLIENT_WATCH}, {@code CLIENT_UNWATCH}, {@code WATCH_EVENT}). A class of their own because they
 * are the one family whose answers are a stream rather than one reply.
 */
final class WatchBodies implements BodyCodec {

    static final WatchBodies INSTANCE = new WatchBodies();

    private WatchBodies() {
    }

    @Override
    public void write(FrameWriter w, Message body) {
        switch (body.type()) {
            case WATCH -> {
                Watch m = (Watch) body;
                w.id(m.key(), "key");
                w.i64(m.epoch());
                w.nonNegativeI32(m.leaseMillis(), "leaseMillis");
                w.bool(m.wantRecords());
                w.bytes(m.placemark(), HASH_BYTES_MAX, "placemark");
            }
            case WATCH_ACK -> {
                WatchAck m = (WatchAck) body;
                w.status(m.status());
                w.bool(m.renewed());
                w.nonNegativeI64(m.changesSent(), "changesSent");
                w.contacts(m.replicas(), "replicas");
                ReplicaBodies.writeReplicaRecords(w, m.records());
                w.bool(m.more());
            }
            case WATCH_CHANGE -> {
                WatchChange m = (WatchChange) body;
                w.id(m.key(), "key");
                w.i64(m.epoch());
                w.nonNegativeI64(m.number(), "number");
                ReplicaBodies.writeReplicaRecords(w, m.records());
            }
            case CLIENT_WATCH -> {
                ClientWatch m = (ClientWatch) body;
                w.id(m.key(), "key");
                w.filter(m.filter());
                w.i64(m.resumeEpoch());
                w.nonNegativeI64(m.resumeSeq(), "resumeSeq");
            }
            case CLIENT_UNWATCH -> w.i64(((ClientUnwatch) body).watchRequestId());
            case WATCH_EVENT -> {
                WatchEvent m = (WatchEvent) body;
                w.u8(m.kind().code());
                w.i64(m.epoch());
                w.nonNegativeI64(m.seq(), "seq");
                w.bytes(m.valueHash(), HASH_BYTES_MAX, "valueHash");
                w.bytes(m.value().value(), VALUE_BYTES_MAX, "value");
                w.nonNegativeI64(m.value().ttlRemainingMillis(), "ttlRemainingMillis");
                w.stamp(m.value().stamp());
                w.status(m.status());
                w.string(m.detail(), "detail");
            }
            default -> throw BodyCodec.notInFamily(body.type(), WatchBodies.class);
        }
    }

    @Override
    public Message read(FrameReader r, MessageType type) {
        return switch (type) {
            case WATCH -> new Watch(r.id("key"), r.i64("epoch"), r.nonNegativeI32("leaseMillis"),
                    r.bool("wantRecords"), r.bytes(HASH_BYTES_MAX, "placemark"));
            case WATCH_ACK -> new WatchAck(r.status(), r.bool("renewed"), r.nonNegativeI64("changesSent"),
                    r.contacts("replicas"), ReplicaBodies.readReplicaRecords(r), r.bool("more"));
            case WATCH_CHANGE -> new WatchChange(r.id("key"), r.i64("epoch"), r.nonNegativeI64("number"),
                    ReplicaBodies.readReplicaRecords(r));
            case CLIENT_WATCH -> new ClientWatch(r.id("key"), r.filter(), r.i64("resumeEpoch"),
                    r.nonNegativeI64("resumeSeq"));
            case CLIENT_UNWATCH -> new ClientUnwatch(r.i64("watchRequestId"));
            case WATCH_EVENT -> readEvent(r);
            default -> throw BodyCodec.notInFamily(type, WatchBodies.class);
        };
    }

    private static WatchEvent readEvent(FrameReader r) {
        int code = r.u8("kind");
        WatchKind kind = WatchKind.fromCode(code);
        if (kind == null) {
            throw new CodecException("unknown watch event kind " + code);
        }
        return new WatchEvent(kind, r.i64("epoch"), r.nonNegativeI64("seq"), r.bytes(HASH_BYTES_MAX, "valueHash"),
                new ValueEntry(r.bytes(VALUE_BYTES_MAX, "value"), r.nonNegativeI64("ttlRemainingMillis"), r.stamp()),
                r.status(), r.string("detail"));
    }
}
