package io.rattan.node.limits;

/** The three listening ports of a node, as its limits count them. */
public enum Port {
    /** Peer traffic. */
    PEER,
    /** The binary client RPC. */
    GATEWAY,
    /** HTTP/JSON and /metrics. */
    HTTP
}
