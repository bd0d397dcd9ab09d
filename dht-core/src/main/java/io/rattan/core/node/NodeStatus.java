package io.rattan.core.node;

import io.rattan.core.net.Contact;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A snapshot of a node's state, for {@code GET /node} and tests.
 *
 * @param self            this node
 * @param joined          true once the node has joined the overlay (or is the first node)
 * @param ready           true once it can take puts: joined, and it has heard from its nearest neighbour on each side
 * @param leafSet         leaf-set members, counter-clockwise side first, nearest first on each side
 * @param routingRowFill  number of filled slots per routing-table row, rows 0..n (trailing empty rows omitted)
 * @param routingTable    the routing table's contacts, row by row ({@link #routingEntries} of them)
 * @param storedRecords   records in the local store, tombstones included
 * @param leafSuspects    leaf-set members suspected now (their requests unanswered; out of every replica set)
 * @param repair          what repair has done over the node's life
 * @param clientWatches   clients' watches this node serves as gateway
 * @param watchRegistrations gateways' watch registrations this node holds as replica
 * @param namespaceRecords records held in each live namespace other than the default, by name (the default's are
 *                         {@code storedRecords})
 * @param joinRefusal     why the cluster refused this node's join (its k, W or value limits differ), or null
 */
public record NodeStatus(Contact self, boolean joined, boolean ready, List<Contact> leafSet,
                         List<Integer> routingRowFill, List<Contact> routingTable, long storedRecords, int leafSuspects,
                         RepairTotals repair, int clientWatches, int watchRegistrations,
                         Map<String, Long> namespaceRecords, String joinRefusal) {

    public NodeStatus {
        leafSet = List.copyOf(leafSet);
        routingRowFill = List.copyOf(routingRowFill);
        routingTable = List.copyOf(routingTable);
        namespaceRecords = Collections.unmodifiableMap(new TreeMap<>(namespaceRecords));
    }

    /** A snapshot that is ready exactly when joined, with no suspect and no repair done. */
    public NodeStatus(Contact self, boolean joined, List<Contact> leafSet, List<Integer> routingRowFill,
                      List<Contact> routingTable, long storedRecords) {
        this(self, joined, joined, leafSet, routingRowFill, routingTable, storedRecords, 0, RepairTotals.NONE, 0, 0,
                Map.of(), null);
    }

    /** Total contacts in the routing table. */
    public int routingEntries() {
        return routingTable.size();
    }
}
