package io.rattan.core.node;

import io.rattan.core.net.Contact;
import java.util.List;

/**
 * What a node's own view says of a key, and how settled that view is: for the fault simulator's diagnostics (which
 * node answered a get, and why it lacked a value). {@link Node#replicaView} makes one; it changes nothing.
 *
 * @param replica               one of the key's k replicas in the node's view
 * @param root                  the usable node closest to the key that the node knows of
 * @param replicaSet            the replicas of the key the node sees, closest first
 * @param withSuspects          the k nodes closest to the key in its leaf set, suspects included
 * @param leafSet               its leaf-set members, suspects included
 * @param startedAtNanos        when the node started (its clock's nanoTime), -1 before
 * @param leafSetChangedAtNanos when its leaf set last changed, -1 never
 */
public record ReplicaView(boolean replica, boolean root, List<Contact> replicaSet, List<Contact> withSuspects,
                          List<Contact> leafSet, long startedAtNanos,
                          long leafSetChangedAtNanos) {
}
