package io.rattan.core.codec;

import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Consistency;
import io.rattan.api.Cost;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.OwnerStamp;
import io.rattan.api.RoutingMode;
import io.rattan.api.Status;
import io.rattan.api.ValueFilter;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.ClientMessages.ClientRemove;
import io.rattan.core.msg.ClientMessages.ClientRing;
import io.rattan.core.msg.ClientMessages.IterativeGet;
import io.rattan.core.msg.ClientMessages.IterativeGetReply;
import io.rattan.core.msg.ClientMessages.RingReply;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.MembershipMessages.HopAck;
import io.rattan.core.msg.MembershipMessages.JoinInfo;
import io.rattan.core.msg.MembershipMessages.JoinRequest;
import io.rattan.core.msg.MembershipMessages.LeafExchange;
import io.rattan.core.msg.MembershipMessages.LeafExchangeReply;
import io.rattan.core.msg.MembershipMessages.Ping;
import io.rattan.core.msg.MembershipMessages.Pong;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.MessageType;
import io.rattan.core.msg.NamespaceDefinition;
import io.rattan.core.msg.NamespaceMessages.InNamespace;
import io.rattan.core.msg.NamespaceMessages.NamespaceDefs;
import io.rattan.core.msg.NamespaceMessages.NamespaceQuery;
import io.rattan.core.msg.PutCondition;
import io.rattan.core.msg.RepairMessages.Digest;
import io.rattan.core.msg.RepairMessages.DigestEntry;
import io.rattan.core.msg.RepairMessages.DigestWant;
import io.rattan.core.msg.RepairMessages.RangeDigest;
import io.rattan.core.msg.RepairMessages.RangeDigestReply;
import io.rattan.core.msg.RepairMessages.RangeSum;
import io.rattan.core.msg.ReplicaMessages.PutAck;
import io.rattan.core.msg.ReplicaMessages.RemoveAck;
import io.rattan.core.msg.ReplicaMessages.RemoveReplica;
import io.rattan.core.msg.ReplicaMessages.RemoveReplicaReply;
import io.rattan.core.msg.ReplicaMessages.ReplicaRead;
import io.rattan.core.msg.ReplicaMessages.ReplicaReadReply;
import io.rattan.core.msg.ReplicaMessages.ReplicaRecord;
import io.rattan.core.msg.ReplicaMessages.StoreAck;
import io.rattan.core.msg.ReplicaMessages.StoreReplicas;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.GetRequest;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.msg.RequestMessages.PutRequest;
import io.rattan.core.msg.RequestMessages.RemoveReply;
import io.rattan.core.msg.RequestMessages.RemoveRequest;
import io.rattan.core.msg.RequestMessages.ValueEntry;
import io.rattan.core.msg.WatchKind;
import io.rattan.core.msg.WatchMessages.ClientUnwatch;
import io.rattan.core.msg.WatchMessages.ClientWatch;
import io.rattan.core.msg.WatchMessages.Watch;
import io.rattan.core.msg.WatchMessages.WatchAck;
import io.rattan.core.msg.WatchMessages.WatchChange;
import io.rattan.core.msg.WatchMessages.WatchEvent;
import io.rattan.core.net.Contact;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/** Generators for every wire type, covering the whole legal range of each field, bounds included. */
final class MessageArbitraries {

    private MessageArbitraries() {
    }

    static Arbitrary<Id> ids() {
        Arbitrary<Long> lowWords = Arbitraries.longs().between(0, 0xFFFF_FFFFL);
        return Combinators.combine(Arbitraries.longs(), Arbitraries.longs(), lowWords).as(Id::new);
    }

    static Arbitrary<Bytes> bytes(int lengthMax) {
        return Arbitraries.bytes().array(byte[].class).ofMaxSize(lengthMax).map(Bytes::wrap);
    }

    /** Mostly short values, sometimes larger ones, so that lists of them stay quick to generate. */
    static Arbitrary<Bytes> values() {
        return Arbitraries.frequencyOf(
                Tuple.of(8, bytes(64)),
                Tuple.of(2, bytes(2048)),
                Tuple.of(1, Arbitraries.just(Bytes.wrap(new byte[MessageCodec.VALUE_BYTES_MAX]))));
    }

    static Arbitrary<Bytes> hashes() {
        return bytes(MessageCodec.HASH_BYTES_MAX);
    }

    static Arbitrary<Bytes> secrets() {
        return bytes(MessageCodec.SECRET_BYTES_MAX);
    }

    /** Well-formed text over all of Unicode: ASCII, two- and three-byte forms, and supplementary code points. */
    static Arbitrary<String> text(int codePointsMin, int codePointsMax) {
        Arbitrary<Integer> codePoints = Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.integers().between(0, 0x7F)),
                Tuple.of(2, Arbitraries.integers().between(0x80, 0x7FF)),
                Tuple.of(2, Arbitraries.integers().between(0x800, 0xFFFF)
                        .filter(cp -> cp < Character.MIN_SURROGATE || cp > Character.MAX_SURROGATE)),
                Tuple.of(1, Arbitraries.integers().between(0x10000, Character.MAX_CODE_POINT)));
        return codePoints.list().ofMinSize(codePointsMin).ofMaxSize(codePointsMax).map(cps -> {
            StringBuilder sb = new StringBuilder();
            cps.forEach(sb::appendCodePoint);
            return sb.toString();
        });
    }

    static Arbitrary<String> details() {
        return Arbitraries.oneOf(text(0, 40), Arbitraries.just("x".repeat(MessageCodec.STRING_BYTES_MAX)));
    }

    static Arbitrary<Contact> contacts() {
        // At most 63 code points of at most 4 bytes keep every host within the 255-byte bound.
        Arbitrary<String> hosts = Arbitraries.oneOf(
                Arbitraries.strings().withCharRange('a', 'z').numeric().withChars('.', '-').ofMinLength(1)
                        .ofMaxLength(255),
                text(1, 63));
        return Combinators.combine(ids(), hosts, Arbitraries.integers().between(0, 65535),
                        Arbitraries.integers().between(0, 65535))
                .as((id, host, port, gatewayPort) -> new Contact(id, new Address(host, port), gatewayPort));
    }

    static Arbitrary<List<Contact>> contactLists() {
        return contacts().list().ofMaxSize(8);
    }

    static Arbitrary<Integer> nonNegativeInts() {
        return Arbitraries.integers().greaterOrEqual(0);
    }

    static Arbitrary<Long> nonNegativeLongs() {
        return Arbitraries.longs().greaterOrEqual(0);
    }

    static Arbitrary<Integer> hops() {
        return Arbitraries.integers().between(0, MessageCodec.HOPS_MAX);
    }

    static Arbitrary<Status> statuses() {
        return Arbitraries.of(Status.class);
    }

    /** An owner stamp, or none (null) a third of the time; the codec checks no signature. */
    /** An id's or a put origin's proof: a public key and a signature, or none. */
    static Arbitrary<io.rattan.core.msg.MembershipMessages.IdProof> proofs() {
        return Combinators.combine(fixedBytes(32), fixedBytes(64)).as(io.rattan.core.msg.MembershipMessages.IdProof::new)
                .injectNull(0.3);
    }

    static Arbitrary<OwnerStamp> stamps() {
        Arbitrary<OwnerStamp> some = Combinators.combine(fixedBytes(OwnerStamp.OWNER_BYTES), Arbitraries.longs(),
                Arbitraries.longs(), Arbitraries.longs().between(0, OwnerStamp.EXPIRES_AT_SECONDS_MAX),
                fixedBytes(OwnerStamp.SIGNATURE_BYTES)).as(OwnerStamp::new);
        return Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.just(null)), Tuple.of(2, some));
    }

    /** A get's value filter: none, an owner's values, or one value of an owner. */
    static Arbitrary<ValueFilter> filters() {
        return Arbitraries.oneOf(Arbitraries.just(ValueFilter.NONE),
                fixedBytes(OwnerStamp.OWNER_BYTES).map(ValueFilter::owner),
                Combinators.combine(fixedBytes(OwnerStamp.OWNER_BYTES), Arbitraries.longs()).as(ValueFilter::value));
    }

    static Arbitrary<PutCondition> conditions() {
        return Arbitraries.oneOf(Arbitraries.just(PutCondition.NONE), Arbitraries.just(PutCondition.ABSENT),
                Arbitraries.longs().map(PutCondition::ifSeq));
    }

    private static Arbitrary<Bytes> fixedBytes(int n) {
        return Arbitraries.bytes().array(byte[].class).ofSize(n).map(Bytes::wrap);
    }

    static Arbitrary<ValueEntry> valueEntries() {
        return Combinators.combine(values(), nonNegativeLongs(), stamps()).as(ValueEntry::new);
    }

    static Arbitrary<ReplicaRecord> replicaRecords() {
        return Combinators.combine(ids(), hashes(), values(), nonNegativeLongs(), hashes(), secrets(),
                Arbitraries.of(true, false), stamps()).as(ReplicaRecord::new);
    }

    static Arbitrary<Cost> costs() {
        return Combinators.combine(nonNegativeInts(), nonNegativeLongs()).as(Cost::new);
    }

    static Arbitrary<DigestEntry> digestEntries() {
        return Combinators.combine(ids(), hashes(), Arbitraries.of(true, false), Arbitraries.longs(),
                Arbitraries.longs()).as(DigestEntry::new);
    }

    /** One generator per message type; a test checks that no type is missing. */
    static Map<MessageType, Arbitrary<Message>> messagesByType() {
        Map<MessageType, Arbitrary<Message>> m = new EnumMap<>(MessageType.class);
        m.put(MessageType.PING, Arbitraries.just(new Ping()));
        m.put(MessageType.PONG, Combinators.combine(contacts().list().ofMaxSize(1), Arbitraries.longs().greaterOrEqual(0))
                .as(Pong::new));
        m.put(MessageType.HOP_ACK, Arbitraries.just(new HopAck()));
        m.put(MessageType.LEAVE, Arbitraries.just(new io.rattan.core.msg.MembershipMessages.Leave()));
        m.put(MessageType.HELLO, Arbitraries.integers().greaterOrEqual(0)
                .map(v -> (Message) new io.rattan.core.msg.MembershipMessages.Hello(v)));
        m.put(MessageType.CHALLENGE, Arbitraries.just(new io.rattan.core.msg.MembershipMessages.Challenge()));
        m.put(MessageType.CHALLENGE_ANSWER,
                proofs().map(p -> (Message) new io.rattan.core.msg.MembershipMessages.ChallengeAnswer(p)));
        m.put(MessageType.WELCOME, Arbitraries.just(new io.rattan.core.msg.MembershipMessages.Welcome()));
        Arbitrary<io.rattan.core.msg.MembershipMessages.ClusterTerms> terms = Combinators.combine(
                Arbitraries.integers().greaterOrEqual(0), Arbitraries.integers().greaterOrEqual(0),
                Arbitraries.integers().greaterOrEqual(0), Arbitraries.integers().greaterOrEqual(0))
                .as(io.rattan.core.msg.MembershipMessages.ClusterTerms::new).injectNull(0.3);
        m.put(MessageType.JOIN_REQUEST, Combinators.combine(contacts(), Arbitraries.longs(), hops(), terms)
                .as(JoinRequest::new));
        m.put(MessageType.JOIN_INFO, Combinators.combine(contactLists(), Arbitraries.of(true, false))
                .as(JoinInfo::new));
        m.put(MessageType.LEAF_EXCHANGE, contactLists().map(LeafExchange::new));
        m.put(MessageType.LEAF_EXCHANGE_REPLY, contactLists().map(LeafExchangeReply::new));
        m.put(MessageType.PUT_REQUEST, Combinators.combine(ids(), values(), nonNegativeInts(), nonNegativeLongs(),
                hashes(), contacts(), Arbitraries.longs(), hops())
                .flatAs((key, value, ttl, expiry, binding, origin, id, hops) -> Combinators.combine(stamps(),
                        conditions(), proofs()).as((stamp, condition, proof) ->
                        new PutRequest(key, value, ttl, expiry, binding, origin, id, hops, stamp, condition, proof))));
        m.put(MessageType.GET_REQUEST, Combinators.combine(ids(), Arbitraries.of(RoutingMode.class),
                nonNegativeInts(), hashes(), contacts(), Arbitraries.longs(), hops(), Arbitraries.of(true, false))
                .flatAs((key, routing, max, placemark, origin, id, hops, want) -> Combinators.combine(costs(),
                        nonNegativeInts(), filters()).as((cost, readQuorum, filter) ->
                        new GetRequest(key, routing, max, placemark, origin, id, hops, want, cost, readQuorum,
                                filter))));
        m.put(MessageType.REMOVE_REQUEST, Combinators.combine(ids(), hashes(), secrets(), nonNegativeInts(),
                contacts(), Arbitraries.longs(), hops()).as(RemoveRequest::new));
        m.put(MessageType.PUT_REPLY, Combinators.combine(statuses(), nonNegativeInts(), details(),
                Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.<Long>just(null)), Tuple.of(1, Arbitraries.longs())))
                .as(PutReply::new));
        m.put(MessageType.GET_REPLY, Combinators.combine(statuses(), valueEntries().list().ofMaxSize(6), hashes(),
                hops(), details(), costs(), contactLists(), nonNegativeInts()).as(GetReply::new));
        m.put(MessageType.ITERATIVE_GET, Combinators.combine(ids(), nonNegativeInts(), hashes(),
                Arbitraries.of(true, false), filters()).as(IterativeGet::new));
        m.put(MessageType.ITERATIVE_GET_REPLY, Combinators.combine(statuses(), Arbitraries.of(true, false),
                valueEntries().list().ofMaxSize(6), hashes(), contactLists()).as(IterativeGetReply::new));
        m.put(MessageType.REMOVE_REPLY, Combinators.combine(statuses(), details()).as(RemoveReply::new));
        m.put(MessageType.STORE_REPLICAS, Arbitraries.oneOf(
                replicaRecords().list().ofMaxSize(6).map(StoreReplicas::new),
                Combinators.combine(replicaRecords().list().ofMaxSize(6), contacts(), Arbitraries.longs())
                        .as(StoreReplicas::new)));
        m.put(MessageType.STORE_ACK, nonNegativeInts().map(StoreAck::new));
        m.put(MessageType.PUT_ACK, Combinators.combine(ids(), hashes(), Arbitraries.longs(), hashes())
                .as(PutAck::new));
        m.put(MessageType.REMOVE_ACK, Combinators.combine(ids(), hashes()).as(RemoveAck::new));
        m.put(MessageType.REMOVE_REPLICA, Arbitraries.oneOf(
                Combinators.combine(ids(), hashes(), secrets(), nonNegativeInts()).as(RemoveReplica::new),
                Combinators.combine(ids(), hashes(), secrets(), nonNegativeInts(), contacts(), Arbitraries.longs())
                        .as(RemoveReplica::new)));
        m.put(MessageType.REMOVE_REPLICA_REPLY, statuses().map(RemoveReplicaReply::new));
        m.put(MessageType.DIGEST, digestEntries().list().ofMaxSize(20).map(Digest::new));
        m.put(MessageType.DIGEST_WANT, digestEntries().list().ofMaxSize(20).map(DigestWant::new));
        Arbitrary<List<RangeSum>> sums = Combinators.combine(nonNegativeInts(), Arbitraries.longs())
                .as(RangeSum::new).list().ofMaxSize(20);
        m.put(MessageType.RANGE_DIGEST, Combinators.combine(ids(), ids(), Arbitraries.of(true, false), sums)
                .as(RangeDigest::new));
        m.put(MessageType.RANGE_DIGEST_REPLY, sums.map(RangeDigestReply::new));
        m.put(MessageType.REPLICA_READ, Combinators.combine(ids(), hashes(), nonNegativeInts(), filters())
                .as(ReplicaRead::new));
        m.put(MessageType.REPLICA_READ_REPLY, Combinators.combine(replicaRecords().list().ofMaxSize(6),
                Arbitraries.of(true, false)).as(ReplicaReadReply::new));
        m.put(MessageType.CLIENT_PUT, Combinators.combine(ids(), values(), nonNegativeInts(), hashes(), stamps(),
                conditions()).as(ClientPut::new));
        m.put(MessageType.CLIENT_GET, Combinators.combine(ids(), nonNegativeInts(), hashes(), Arbitraries.of(true, false),
                wireGetOptions()).as(ClientGet::new));
        m.put(MessageType.CLIENT_REMOVE, Combinators.combine(ids(), hashes(), secrets(), nonNegativeInts())
                .as(ClientRemove::new));
        m.put(MessageType.CLIENT_RING, Combinators.combine(hashes(), nonNegativeInts()).as(ClientRing::new));
        m.put(MessageType.RING_REPLY, Combinators.combine(contactLists(), hashes(), nonNegativeInts())
                .as(RingReply::new));
        m.put(MessageType.ERROR_REPLY, Combinators.combine(statuses(), details(), nonNegativeInts())
                .as(ErrorReply::new));
        putWatchMessages(m);
        putNamespaceMessages(m);
        return m;
    }

    private static void putWatchMessages(Map<MessageType, Arbitrary<Message>> m) {
        Arbitrary<Boolean> bools = Arbitraries.of(true, false);
        m.put(MessageType.WATCH, Combinators.combine(ids(), Arbitraries.longs(), nonNegativeInts(), bools, hashes())
                .as(Watch::new));
        m.put(MessageType.WATCH_ACK, Combinators.combine(statuses(), bools, nonNegativeLongs(), contactLists(),
                replicaRecords().list().ofMaxSize(4), bools).as(WatchAck::new));
        m.put(MessageType.WATCH_CHANGE, Combinators.combine(ids(), Arbitraries.longs(), nonNegativeLongs(),
                replicaRecords().list().ofMaxSize(4)).as(WatchChange::new));
        m.put(MessageType.CLIENT_WATCH, Combinators.combine(ids(), filters(), Arbitraries.longs(), nonNegativeLongs())
                .as(ClientWatch::new));
        m.put(MessageType.CLIENT_UNWATCH, Arbitraries.longs().map(ClientUnwatch::new));
        m.put(MessageType.WATCH_EVENT, Combinators.combine(Arbitraries.of(WatchKind.class), Arbitraries.longs(),
                nonNegativeLongs(), hashes(), valueEntries(), statuses(), details()).as(WatchEvent::new));
    }

    private static void putNamespaceMessages(Map<MessageType, Arbitrary<Message>> m) {
        Arbitrary<String> names = Arbitraries.strings().withChars("abcxyz019._-").ofMinLength(1).ofMaxLength(64)
                .filter(NamespaceDefinition::validName).filter(n -> !n.equals(NamespaceDefinition.DEFAULT));
        Arbitrary<NamespaceDefinition> definitions = Combinators.combine(names, Arbitraries.integers().between(1, 33),
                Arbitraries.integers().between(1, 33), Arbitraries.of(true, false), Arbitraries.integers().between(1,
                        Integer.MAX_VALUE), Arbitraries.integers().between(1, 65_536), Arbitraries.of(RoutingMode.class),
                Arbitraries.of(true, false)).as((n, k, w, mem, ttl, bytes, routing, retired) ->
                new NamespaceDefinition(n, k, Math.min(w, k), mem, ttl, bytes, routing, retired));
        m.put(MessageType.NAMESPACE_DEFS, definitions.list().ofMaxSize(4).map(NamespaceDefs::new));
        m.put(MessageType.NAMESPACE_QUERY, Arbitraries.oneOf(Arbitraries.just(""), names).map(NamespaceQuery::new));
        // Any message but a wrapper, wrapped: what a namespace's jobs send.
        m.put(MessageType.IN_NAMESPACE, Combinators.combine(names, Arbitraries.of(MessageType.class)
                .filter(t -> t != MessageType.IN_NAMESPACE).flatMap(t -> m.get(t))).as(InNamespace::new));
    }

    static Arbitrary<Message> messages() {
        Map<MessageType, Arbitrary<Message>> byType = messagesByType();
        return Arbitraries.of(MessageType.class).flatMap(byType::get);
    }

    static Arbitrary<Envelope> envelopes() {
        return Combinators.combine(contacts().injectNull(0.3), Arbitraries.longs(), messages()).as(Envelope::new);
    }

    /** The get options the binary RPC carries: one gateway, no hedge, and only combinations GetOptions accepts. */
    static Arbitrary<GetOptions> wireGetOptions() {
        return Combinators.combine(Arbitraries.of(RoutingMode.class),
                Arbitraries.integers().between(0, GetOptions.PARALLELISM_MAX), Arbitraries.of(true, false),
                Arbitraries.of(true, false), Arbitraries.integers().between(0, GetOptions.READ_REPLICAS_MAX),
                filters())
                .as((routing, p, oneHop, quorum, r, filter) -> {
                    boolean iterative = routing == RoutingMode.ITERATIVE;
                    boolean q = quorum && !iterative;
                    return GetOptions.builder().routing(routing).parallelism(p).oneHop(oneHop && !iterative)
                            .consistency(q ? Consistency.QUORUM : Consistency.ONE, q ? r : 0).filter(filter).build();
                });
    }
}
