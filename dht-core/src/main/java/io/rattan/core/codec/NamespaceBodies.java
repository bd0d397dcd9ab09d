package io.rattan.core.codec;

import io.rattan.core.msg.Message;
import io.rattan.core.msg.MessageType;
import io.rattan.core.msg.NamespaceDefinition;
import io.rattan.core.msg.NamespaceMessages.InNamespace;
import io.rattan.core.msg.NamespaceMessages.NamespaceDefs;
import io.rattan.core.msg.NamespaceMessages.NamespaceQuery;

/**
 * The bodies of namespaces (protocol version 11): a message of one namespace ({@code IN_NAMESPACE}: the name, then
 * the wrapped message's type tag and body as the frame would carry it bare), and the definitions nodes pass on and
 * ask for ({@code NAMESPACE_DEFS}, {@code NAMESPACE_QUERY}).
 */
final class NamespaceBodies implements BodyCodec {

    static final NamespaceBodies INSTANCE = new NamespaceBodies();
    // name (2 + 1) + k, W (8) + inMemory (1) + ttl, bytes (8) + routing (1) + retired (1)
    private static final int DEFINITION_BYTES_MIN = 22;

    private NamespaceBodies() {
    }

    @Override
    public void write(FrameWriter w, Message body) {
        switch (body.type()) {
            case IN_NAMESPACE -> {
                InNamespace m = (InNamespace) body;
                w.string(m.namespace(), "namespace");
                w.u8(m.body().type().tag());
                MessageCodec.family(m.body().type()).write(w, m.body());
            }
            case NAMESPACE_DEFS -> w.list(((NamespaceDefs) body).definitions(), "definitions",
                    NamespaceBodies::writeDefinition);
            case NAMESPACE_QUERY -> w.string(((NamespaceQuery) body).name(), "name");
            default -> throw BodyCodec.notInFamily(body.type(), NamespaceBodies.class);
        }
    }

    @Override
    public Message read(FrameReader r, MessageType type) {
        return switch (type) {
            case IN_NAMESPACE -> {
                String namespace = r.string("namespace");
                int tag = r.u8("wrapped type tag");
                MessageType inner = MessageType.fromTag(tag);
                if (inner == null || inner == MessageType.IN_NAMESPACE || !MessageCodec.carries(inner, r.version())) {
                    throw new CodecException("a namespace cannot wrap type tag " + tag + " in version " + r.version());
                }
                yield new InNamespace(namespace, MessageCodec.family(inner).read(r, inner));
            }
            case NAMESPACE_DEFS -> new NamespaceDefs(r.list(DEFINITION_BYTES_MIN, "definitions",
                    NamespaceBodies::readDefinition));
            case NAMESPACE_QUERY -> new NamespaceQuery(r.string("name"));
            default -> throw BodyCodec.notInFamily(type, NamespaceBodies.class);
        };
    }

    private static void writeDefinition(FrameWriter w, NamespaceDefinition d) {
        w.string(d.name(), "name");
        w.nonNegativeI32(d.replicas(), "replicas");
        w.nonNegativeI32(d.writeQuorum(), "writeQuorum");
        w.bool(d.inMemory());
        w.nonNegativeI32(d.ttlSecondsMax(), "ttlSecondsMax");
        w.nonNegativeI32(d.valueBytesMax(), "valueBytesMax");
        w.routing(d.routing());
        w.bool(d.retired());
    }

    private static NamespaceDefinition readDefinition(FrameReader r) {
        return new NamespaceDefinition(r.string("name"), r.nonNegativeI32("replicas"), r.nonNegativeI32("writeQuorum"),
                r.bool("inMemory"), r.nonNegativeI32("ttlSecondsMax"), r.nonNegativeI32("valueBytesMax"), r.routing(),
                r.bool("retired"));
    }
}
