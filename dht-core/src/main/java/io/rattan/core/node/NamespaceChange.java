package io.rattan.core.node;

/** What an operator's definition or retirement of a namespace did ({@code Node#defineNamespace}). */
public enum NamespaceChange {
    /** The namespace was made here and is being passed on to every node. */
    CREATED,
    /** The same definition was already held (or the namespace already retired): nothing changed. */
    UNCHANGED,
    /** Another definition of the name is held: definitions are immutable. */
    CONFLICT,
    /** The namespace is (now) retired: its name is never used again. */
    RETIRED,
    /** No namespace of that name is known here. */
    UNKNOWN,
    /** The cluster holds its most namespaces ({@code NamespaceDefinition.COUNT_MAX}). */
    FULL
}
