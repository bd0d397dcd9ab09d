package io.rattan.core.msg;

import java.util.List;

/**
 * The messages of namespaces (protocol version 11): a message wrapped for one namespace, and the definitions nodes
 * pass on and ask for.
 */
public final class NamespaceMessages {

    private NamespaceMessages() {
    }

    /**
     * A message of one namespace (protocol version 11): its {@code body} is read and answered by that namespace's
     * replicas, with that namespace's k, W and limits. Messages of the default namespace travel bare; replies (matched
     * by request id) travel bare in every namespace. A client's request to a namespace comes wrapped too.
     */
    public record InNamespace(String namespace, Message body) implements Message {
        public InNamespace {
            if (!NamespaceDefinition.validName(namespace) || NamespaceDefinition.DEFAULT.equals(namespace)) {
                throw new IllegalArgumentException("not a namespace to wrap: '" + namespace + "'");
            }
            if (body == null || body instanceof InNamespace) {
                throw new IllegalArgumentException("a namespace wraps one message, never another wrapper");
            }
        }

        public MessageType type() {
            return MessageType.IN_NAMESPACE;
        }
    }

    /**
     * Namespace definitions, as a node passes on one it learned (to every node it knows, once) or answers a
     * {@link NamespaceQuery}; retired ones included.
     */
    public record NamespaceDefs(List<NamespaceDefinition> definitions) implements Message {
        public NamespaceDefs {
            definitions = List.copyOf(definitions);
        }

        public MessageType type() {
            return MessageType.NAMESPACE_DEFS;
        }
    }

    /** Asks a node for the definition of {@code name}, or for all it knows when {@code name} is empty. */
    public record NamespaceQuery(String name) implements Message {
        public MessageType type() {
            return MessageType.NAMESPACE_QUERY;
        }
    }
}
