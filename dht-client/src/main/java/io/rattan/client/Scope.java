package io.rattan.client;

import io.rattan.core.msg.Message;
import io.rattan.core.msg.NamespaceDefinition;
import io.rattan.core.msg.NamespaceMessages.InNamespace;

/**
 * The namespace a client's calls are in ({@link RattanClient#namespace(String)}): the default one's requests go bare,
 * as they always have on the wire; another's are wrapped in {@link InNamespace}.
 *
 * @param name the namespace's name
 */
record Scope(String name) {

    static final Scope DEFAULT = new Scope(NamespaceDefinition.DEFAULT);

    Scope {
        if (!NamespaceDefinition.validName(name)) {
            throw new IllegalArgumentException("a namespace's name is 1.." + NamespaceDefinition.NAME_CHARS_MAX
                    + " of a-z 0-9 . _ -, starting with a letter or digit, got '" + name + "'");
        }
    }

    boolean isDefault() {
        return NamespaceDefinition.DEFAULT.equals(name);
    }

    /** {@code request} as a gateway takes it in this namespace. */
    Message wrap(Message request) {
        return isDefault() ? request : new InNamespace(name, request);
    }
}
