package io.rattan.core.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rattan.api.Address;
import io.rattan.api.Bytes;
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
import io.rattan.core.msg.MembershipMessages.ChallengeAnswer;
import io.rattan.core.msg.MembershipMessages.ClusterTerms;
import io.rattan.core.msg.MembershipMessages.HopAck;
import io.rattan.core.msg.MembershipMessages.IdProof;
import io.rattan.core.msg.MembershipMessages.JoinInfo;
import io.rattan.core.msg.MembershipMessages.JoinRequest;
import io.rattan.core.msg.MembershipMessages.LeafExchange;
import io.rattan.core.msg.MembershipMessages.LeafExchangeReply;
import io.rattan.core.msg.MembershipMessages.Ping;
import io.rattan.core.msg.MembershipMessages.Pong;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.MessageType;
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
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class MessageCodecTest {

    private static final Id KEY = Id.fromHex("0123456789abcdef0123456789abcdef01234567");
    private static final Contact ALICE = new Contact(Id.fromHex("a".repeat(40)), new Address("10.0.0.1", 4000));
    private static final Contact BOB = new Contact(Id.fromHex("b".repeat(40)), new Address("bob.example", 65535));
    private static final Bytes HASH = Bytes.wrap(new byte[32]).sha256();

    private final MessageCodec codec = new MessageCodec();

    /** One hand-written message of every type, with non-trivial fields. */
    static List<Message> samples() {
        return List.of(
                new Ping(),
                new io.rattan.core.msg.NamespaceMessages.InNamespace("photos", new StoreAck(3)),
                new io.rattan.core.msg.NamespaceMessages.NamespaceDefs(List.of(new io.rattan.core.msg.NamespaceDefinition(
                        "photos", 3, 2, true, 3600, 65_536, RoutingMode.GREEDY, false))),
                new io.rattan.core.msg.NamespaceMessages.NamespaceQuery(""),
                new Pong(),
                new Pong(List.of(BOB)),
                new HopAck(),
                new io.rattan.core.msg.MembershipMessages.Hello(MessageCodec.VERSION),
                new io.rattan.core.msg.MembershipMessages.Challenge(),
                new io.rattan.core.msg.MembershipMessages.ChallengeAnswer(null),
                new io.rattan.core.msg.MembershipMessages.ChallengeAnswer(new io.rattan.core.msg.MembershipMessages.IdProof(
                        Bytes.wrap(new byte[32]), Bytes.wrap(new byte[64]))),
                new io.rattan.core.msg.MembershipMessages.Welcome(),
                new io.rattan.core.msg.MembershipMessages.Leave(),
                new JoinRequest(ALICE, 77, 3, new ClusterTerms(4, 2, 1024, 604_800)),
                new JoinInfo(List.of(ALICE, BOB), true),
                new LeafExchange(List.of(BOB)),
                new LeafExchangeReply(List.of()),
                new PutRequest(KEY, Bytes.utf8("hello"), 3600, 1_700_000_003_600_000L, HASH, ALICE, 9, 2),
                new GetRequest(KEY, 10, Bytes.utf8("mark"), BOB, 10, 0),
                new GetRequest(KEY, RoutingMode.GREEDY, 0, Bytes.EMPTY, ALICE, 12, 3, true, new Cost(7, 1234)),
                new GetRequest(KEY, RoutingMode.DELAY_AWARE, 5, HASH, ALICE, 13, 1, false, Cost.ZERO, 3),
                new RemoveRequest(KEY, HASH, Bytes.utf8("s3cret"), 60, ALICE, 11, 255),
                new PutReply(Status.OK, 3, ""),
                new GetReply(Status.OK, List.of(new ValueEntry(Bytes.utf8("v1"), 1000),
                        new ValueEntry(Bytes.EMPTY, 0)), Bytes.EMPTY, 4, "fine"),
                new GetReply(Status.OK, List.of(), HASH, 1, "", new Cost(3, 400), List.of(ALICE, BOB)),
                new GetReply(Status.PARTIAL, List.of(new ValueEntry(Bytes.utf8("v"), 5)), Bytes.EMPTY, 2,
                        "2 of the 3 replicas asked for answered", new Cost(6, 900), List.of(), 2),
                new IterativeGet(KEY, 5, Bytes.EMPTY, true),
                new IterativeGet(KEY, 5, Bytes.EMPTY, true, ValueFilter.value(HASH, 7)),
                new IterativeGetReply(Status.OK, false, List.of(), Bytes.EMPTY, List.of(BOB)),
                new IterativeGetReply(Status.OK, true, List.of(new ValueEntry(Bytes.utf8("v"), 9)), HASH, List.of()),
                new RemoveReply(Status.FORBIDDEN, "wrong secret"),
                new StoreReplicas(List.of(new ReplicaRecord(KEY, HASH, Bytes.utf8("v"), 5000, HASH, Bytes.EMPTY, false),
                        new ReplicaRecord(KEY, HASH, Bytes.EMPTY, 0, Bytes.EMPTY, Bytes.utf8("the secret"), true))),
                new StoreAck(2),
                new StoreReplicas(List.of(
                        new ReplicaRecord(KEY, HASH, Bytes.utf8("v"), 5000, HASH, Bytes.EMPTY, false)), BOB, 77),
                new PutAck(KEY, HASH, 5000, Bytes.EMPTY),
                new RemoveAck(KEY, HASH),
                new RemoveReplica(KEY, HASH, Bytes.utf8("s"), 30),
                new RemoveReplica(KEY, HASH, Bytes.utf8("s"), 30, BOB, 77),
                new RemoveReplicaReply(Status.NOT_FOUND),
                new Digest(List.of(new DigestEntry(KEY, HASH, false), new DigestEntry(Id.MAX, Bytes.EMPTY, true))),
                new DigestWant(List.of(new DigestEntry(Id.ZERO, HASH, true))),
                new RangeDigest(KEY, Id.MAX, true, List.of(new RangeSum(0, 0), new RangeSum(3, -7))),
                new RangeDigestReply(List.of(new RangeSum(Integer.MAX_VALUE, Long.MIN_VALUE))),
                new ReplicaRead(KEY, HASH, 256),
                new ReplicaRead(KEY, Bytes.EMPTY, 0),
                new ReplicaRead(KEY, HASH, 1, ValueFilter.owner(HASH)),
                new ReplicaReadReply(List.of(new ReplicaRecord(KEY, HASH, Bytes.utf8("v"), 5000, HASH, Bytes.EMPTY,
                        false), new ReplicaRecord(KEY, HASH, Bytes.EMPTY, 7000, Bytes.EMPTY, Bytes.utf8("s"), true)),
                        true),
                new ReplicaReadReply(List.of(), false),
                new ClientPut(KEY, Bytes.utf8("value"), 0, Bytes.EMPTY),
                ClientGet.of(KEY),
                ClientGet.of(KEY, GetOptions.of(RoutingMode.ITERATIVE).withParallelism(3)).page(3, Bytes.EMPTY)
                        .askingHolders(),
                ClientGet.of(KEY, GetOptions.of(RoutingMode.DELAY_AWARE).withOneHop(true)).page(3, Bytes.EMPTY),
                ClientGet.of(KEY, GetOptions.of(RoutingMode.GREEDY).withQuorum(3)),
                ClientGet.of(KEY, GetOptions.of(RoutingMode.GREEDY).withQuorum(2).withFilter(ValueFilter.owner(HASH))),
                new ClientRemove(KEY, HASH, Bytes.utf8("secret"), 120),
                new ClientRing(Bytes.EMPTY, 0),
                new ClientRing(Bytes.wrap(KEY.toBytes()), 256),
                new RingReply(List.of(ALICE, new Contact(BOB.id(), BOB.address(), 7000)),
                        Bytes.wrap(BOB.id().toBytes()), 3),
                new RingReply(List.of(), Bytes.EMPTY, 0),
                new ErrorReply(Status.TOO_LARGE, "naïve ☃ 𝄞"),
                new ErrorReply(Status.RATE_LIMITED, "over the rate", 250),
                new ErrorReply(Status.QUOTA_EXCEEDED, "share full", 60_000),
                new Watch(KEY, -3, 90_000, true, HASH),
                new Watch(KEY, 1, 0, false, Bytes.EMPTY),
                new WatchAck(Status.OK, true, 7, List.of(ALICE, BOB), List.of(new ReplicaRecord(KEY, HASH,
                        Bytes.utf8("v"), 5000, HASH, Bytes.EMPTY, false)), true),
                new WatchAck(Status.NOT_FOUND, false, 0, List.of(), List.of(), false),
                new WatchChange(KEY, Long.MIN_VALUE, 1, List.of(new ReplicaRecord(KEY, HASH, Bytes.EMPTY, 7000,
                        Bytes.EMPTY, Bytes.EMPTY, true))),
                new ClientWatch(KEY, ValueFilter.NONE, 0, 0),
                new ClientWatch(KEY, ValueFilter.value(HASH, 9), -1, 12),
                new ClientUnwatch(42),
                WatchEvent.of(WatchKind.VALUE, 5, 6, HASH, new ValueEntry(Bytes.utf8("v"), 1000)),
                WatchEvent.of(WatchKind.READY, 5, 6, Bytes.EMPTY, WatchEvent.NO_VALUE),
                WatchEvent.ended(Status.RATE_LIMITED, "too many watches"));
    }

    static List<Envelope> sampleEnvelopes() {
        List<Envelope> envelopes = new ArrayList<>();
        for (Message m : samples()) {
            envelopes.add(new Envelope(null, 42, m));
            envelopes.add(new Envelope(BOB, -1, m));
        }
        return envelopes;
    }

    @Test
    void samplesCoverEveryMessageType() {
        Set<MessageType> types = samples().stream().map(Message::type).collect(Collectors.toSet());
        assertThat(types).isEqualTo(EnumSet.allOf(MessageType.class));
    }

    @ParameterizedTest
    @MethodSource("sampleEnvelopes")
    void samplesRoundTrip(Envelope envelope) {
        byte[] frame = codec.encode(envelope);

        assertThat(frame).hasSize(codec.encodedSize(envelope));
        assertThat(codec.decode(frame)).isEqualTo(envelope);
    }

    // ---- the wire layout, pinned byte for byte ----

    @Test
    void aNamespacesMessageIsItsNameThenTheWrappedTypeAndBody() {
        byte[] frame = codec.encode(new Envelope(null, 0, new io.rattan.core.msg.NamespaceMessages.InNamespace("ab",
                new StoreAck(5))));

        assertThat(hex(frame)).isEqualTo("11" + "50" + "00" + "0000000000000000" + "0002" + "6162" + "29" + "00000005");
        byte[] wrapsAWrapper = concat(hexBytes("115000" + "0000000000000000" + "0002" + "6162" + "50" + "0002" + "6162"),
                hexBytes("29" + "00000005"));
        assertRejected(wrapsAWrapper, "a namespace cannot wrap type tag 80");
    }

    @Test
    void headerWithoutSender() {
        byte[] frame = codec.encode(new Envelope(null, 0x0102030405060708L, new StoreAck(5)));

        assertThat(hex(frame)).isEqualTo("11" + "29" + "00" + "0102030405060708" + "00000005");
    }

    @Test
    void headerWithSender() {
        Contact sender = new Contact(KEY, new Address("ab", 0x1234), 0x1235);
        byte[] frame = codec.encode(new Envelope(sender, -2, new Ping()));

        assertThat(hex(frame)).isEqualTo("11" + "01" + "01" + KEY.toHex() + "02" + "6162" + "1234" + "1235"
                + "fffffffffffffffe");
        assertThat(codec.decode(frame).sender().gatewayAddress()).isEqualTo(new Address("ab", 0x1235));
    }

    @Test
    void bodyFieldsInDeclarationOrder() {
        Message put = new ClientPut(KEY, Bytes.fromHex("aabb"), 300, Bytes.fromHex("cc"));
        ErrorReply error = new ErrorReply(Status.UNAVAILABLE, "é");
        JoinInfo info = new JoinInfo(List.of(new Contact(Id.ZERO, new Address("h", 1))), true);

        assertThat(hex(codec.encode(new Envelope(null, 0, put)))).isEqualTo("113c00" + "0000000000000000"
                + KEY.toHex() + "00000002aabb" + "0000012c" + "00000001cc" + "00" + "00" + "0000000000000000");
        assertThat(hex(codec.encode(new Envelope(null, 0, error)))).isEqualTo("114600" + "0000000000000000"
                + "05" + "0002c3a9" + "00000000");
        assertThat(hex(codec.encode(new Envelope(null, 0, info)))).isEqualTo("110b00" + "0000000000000000"
                + "0001" + "00".repeat(20) + "01" + "68" + "0001" + "0000" + "01");
    }

    @Test
    void theClientGetOfTheProtocolExampleHasItsDocumentedBytes() {
        ClientGet get = ClientGet.of(Id.ofName("greeting"), GetOptions.of(RoutingMode.DELAY_AWARE));
        String common = "113d00" + "0000000000000007" + "a0f7e779f9247566c84036f07f7bdf4a40a869bd" + "01" + "00000000"
                + "00000000" + "00000000" + "00" + "00";

        assertThat(hex(codec.encode(new Envelope(null, 7, get)))).isEqualTo(common + "00" + "00000000" + "00");
        ClientGet quorum = ClientGet.of(get.key(), GetOptions.of(RoutingMode.DELAY_AWARE).withQuorum(3));
        assertThat(hex(codec.encode(new Envelope(null, 7, quorum)))).isEqualTo(common + "01" + "00000003" + "00");
        assertThat(codec.encode(new Envelope(null, 7, get))).hasSize(52);
    }

    /**
     * Version 9: a get's value filter ends {@code CLIENT_GET}, {@code GET_REQUEST}, {@code ITERATIVE_GET} and
     * {@code REPLICA_READ}: u8 0 (none), u8 1 and the owner, or u8 2, the owner and the value id.
     */
    @Test
    void aValueFilterEndsTheGetsAndIsCheckedOnTheWayIn() {
        Bytes owner = Bytes.wrap(filled(32, 0x33));
        ValueFilter byOwner = ValueFilter.owner(owner);
        ValueFilter one = ValueFilter.value(owner, -2L);
        String ownerHex = "33".repeat(32);
        List<Message> gets = List.of(
                ClientGet.of(KEY, GetOptions.builder().owner(owner).valueId(-2L).build()).page(2, HASH),
                new GetRequest(KEY, RoutingMode.GREEDY, 1, HASH, ALICE, 5, 2, true, new Cost(1, 2), 3, one),
                new IterativeGet(KEY, 4, HASH, false, one),
                new ReplicaRead(KEY, HASH, 6, one));
        for (Message m : gets) {
            Envelope e = new Envelope(BOB, 9, m);
            byte[] frame = codec.encode(e);
            assertThat(hex(frame)).endsWith("02" + ownerHex + "fffffffffffffffe");
            assertThat(codec.decode(frame)).isEqualTo(e);
            byte[] badKind = frame.clone();
            badKind[frame.length - 41] = 3;
            assertRejected(badKind, "filter kind is 3");
            assertRejected(Arrays.copyOf(frame, frame.length - 1), "filter.valueId");
        }
        Envelope owned = new Envelope(null, 1, new ReplicaRead(KEY, Bytes.EMPTY, 0, byOwner));
        assertThat(hex(codec.encode(owned))).endsWith("00000000" + "01" + ownerHex);
        assertThat(codec.decode(codec.encode(owned))).isEqualTo(owned);
        assertThat(codec.encodedSize(owned) - codec.encodedSize(new Envelope(null, 1,
                new ReplicaRead(KEY, Bytes.EMPTY, 0)))).as("an owner filter costs 32 bytes").isEqualTo(32);
        assertThatThrownBy(() -> GetOptions.builder().valueId(1).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs an owner");
    }

    /**
     * Version 6: a replica record carries a value's binding and then a tombstone's secret, so that the receiver can
     * check the tombstone; a put carries the binding where version 5 carried SHA-256 of the secret.
     */
    @Test
    void aReplicaRecordCarriesTheBindingThenTheSecret() {
        Bytes secret = Bytes.utf8("s3");
        ReplicaRecord tombstone = new ReplicaRecord(KEY, Bytes.fromHex("ab"), Bytes.EMPTY, 0x0102, Bytes.EMPTY,
                secret, true);
        Envelope envelope = new Envelope(null, 0, new StoreReplicas(List.of(tombstone)));
        byte[] frame = codec.encode(envelope);

        assertThat(hex(frame)).isEqualTo("112800" + "0000000000000000" + "0001" + KEY.toHex() + "00000001ab"
                + "00000000" + "0000000000000102" + "00000000" + "00000002" + "7333" + "01" + "00" + "00");
        assertThat(codec.decode(frame)).isEqualTo(envelope);
        PutRequest put = new PutRequest(KEY, Bytes.utf8("v"), 60, 1_700_000_060_000L, HASH, ALICE, 3, 1);
        assertThat(((PutRequest) codec.decode(codec.encode(new Envelope(BOB, 1, put))).body()).binding())
                .isEqualTo(HASH);
    }

    /** Version 17: a put ends with its origin's proof (a presence byte, 32 + 64 bytes); a frame of 16 has none. */
    @Test
    void aPutEndsWithItsOriginsProofWhichAFrameOf16Lacks() {
        IdProof proof = new IdProof(Bytes.wrap(filled(32, 0x33)), Bytes.wrap(filled(64, 0x44)));
        PutRequest put = new PutRequest(KEY, Bytes.utf8("v"), 60, 1_700_000_060_000L, HASH, ALICE, 3, 1, null,
                PutCondition.NONE, proof);
        byte[] frame = codec.encode(new Envelope(BOB, 1, put));
        byte[] unsigned = codec.encode(new Envelope(BOB, 1, put.withOriginProof(null)));

        assertThat(hex(frame)).endsWith("01" + "33".repeat(32) + "44".repeat(64));
        assertThat(frame).hasSize(unsigned.length + 96);
        assertThat(codec.decode(frame).body()).isEqualTo(put);
        byte[] of16 = codec.at(16).encode(new Envelope(BOB, 1, put));
        assertThat(of16).hasSize(unsigned.length - 1);
        assertThat(codec.decode(of16).body()).isEqualTo(put.withOriginProof(null));
    }

    // ---- decode: malformed frames ----

    @Test
    void theVersionBeforeIsReadAndDiffersOnlyInItsFirstByte() {
        MessageCodec older = codec.at(MessageCodec.VERSION_OLDEST);
        Envelope ping = new Envelope(null, 1, new Ping());
        byte[] newest = codec.encode(ping);
        byte[] previous = older.encode(ping);

        assertThat(previous[0]).isEqualTo((byte) 14);
        assertThat(Arrays.copyOfRange(previous, 1, previous.length))
                .isEqualTo(Arrays.copyOfRange(newest, 1, newest.length));
        assertThat(codec.decode(previous)).isEqualTo(ping);
        assertThat(codec.accepts(14)).isTrue();
        assertThat(codec.accepts(15)).isTrue();
        assertThat(older.accepts(15)).isFalse();
        assertThat(older.oldestAccepted()).isEqualTo(14);
        assertThat(codec.at(15).oldestAccepted()).as("15 and 16 share every byte: a node of 15 reads 14 too")
                .isEqualTo(14);
        assertThatThrownBy(() -> older.decode(newest)).isInstanceOf(CodecException.class)
                .hasMessageContaining("unsupported version 17: this node speaks version 14;");
        assertThatThrownBy(() -> new MessageCodec(1024, 13)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("protocol version 13 is not spoken by this build: 14 to 17");
    }

    /** A node of 14 writes its handshake in 13, the oldest it reads: 15 reads those four frames of 13, nothing else. */
    @Test
    void theHandshakeOfTheVersionBeforeTheOldestIsReadAndNothingElseOfIt() {
        MessageCodec fourteen = codec.at(14);
        List<Message> handshake = List.of(new io.rattan.core.msg.MembershipMessages.Hello(13),
                new io.rattan.core.msg.MembershipMessages.Challenge(), new ChallengeAnswer(null),
                new io.rattan.core.msg.MembershipMessages.Welcome());
        for (Message m : handshake) {
            byte[] frame = ofThirteen(fourteen.encode(new Envelope(ALICE, 13, m)));
            assertThat(codec.decode(frame).body()).as("%s of 13", m.type()).isEqualTo(m);
        }
        assertRejected(ofThirteen(fourteen.encode(new Envelope(ALICE, 1, new Ping()))), "unsupported version 13");
        byte[] hello = fourteen.encode(new Envelope(ALICE, 13, new io.rattan.core.msg.MembershipMessages.Hello(12)));
        hello[0] = 12;
        assertRejected(hello, "unsupported version 12");
    }

    /** A frame of 14 as 13 wrote it: 13's handshake frames differ from 14's in the first byte only. */
    private static byte[] ofThirteen(byte[] frameOf14) {
        byte[] frame = frameOf14.clone();
        frame[0] = 13;
        return frame;
    }

    /**
     * Since 14 a put's copy names the gateway to acknowledge to, and PUT_ACK exists; since 15 a replica's remove names
     * it too, and REMOVE_ACK exists. 14 has neither of the second pair.
     */
    @Test
    void aRemoveNamesItsGatewaySince15AndRemoveAcksAreNotInFourteen() {
        ReplicaRecord r = new ReplicaRecord(KEY, HASH, Bytes.utf8("v"), 5000, Bytes.EMPTY, Bytes.EMPTY, false);
        Envelope copy = new Envelope(ALICE, 3, new StoreReplicas(List.of(r), BOB, 77));
        assertThat(codec.decode(codec.encode(copy))).isEqualTo(copy);
        assertThat(MessageCodec.carries(MessageType.PUT_ACK, 14)).isTrue();
        assertThat(MessageCodec.carries(MessageType.PUT_ACK, 13)).isFalse();

        Envelope remove = new Envelope(ALICE, 3, new RemoveReplica(KEY, HASH, Bytes.utf8("s"), 30, BOB, 77));
        MessageCodec fourteen = codec.at(14);
        assertThat(codec.decode(codec.encode(remove))).isEqualTo(remove);
        assertThat(codec.decode(fourteen.encode(remove)).body())
                .isEqualTo(new RemoveReplica(KEY, HASH, Bytes.utf8("s"), 30));
        assertThat(codec.encode(remove).length - fourteen.encode(remove).length)
                .as("a presence byte, the gateway's contact and the request id").isEqualTo(1 + contactBytes(BOB) + 8);
        Envelope ack = new Envelope(ALICE, 77, new RemoveAck(KEY, HASH));
        assertThat(MessageCodec.carries(MessageType.REMOVE_ACK, 15)).isTrue();
        assertThat(MessageCodec.carries(MessageType.REMOVE_ACK, 14)).isFalse();
        assertThat(MessageCodec.carries(MessageType.REMOVE_REPLICA, 14)).isTrue();
        assertThatThrownBy(() -> fourteen.encode(ack)).isInstanceOf(CodecException.class)
                .hasMessageContaining("REMOVE_ACK is not in protocol version 14");
        assertThatThrownBy(() -> fourteen.encode(new Envelope(ALICE, 77,
                new io.rattan.core.msg.NamespaceMessages.InNamespace("photos", ack.body())))).isInstanceOf(CodecException.class);
        byte[] wrapped = codec.encode(new Envelope(ALICE, 77,
                new io.rattan.core.msg.NamespaceMessages.InNamespace("photos", ack.body())));
        wrapped[0] = 14;
        assertRejected(wrapped, "cannot wrap type tag 37 in version 14");
        byte[] asFourteen = codec.encode(ack);
        asFourteen[0] = 14;
        assertRejected(asFourteen, "REMOVE_ACK in a frame of version 14");
    }

    private int contactBytes(Contact c) {
        return codec.encode(new Envelope(null, 1, new JoinInfo(List.of(c), false))).length
                - codec.encode(new Envelope(null, 1, new JoinInfo(List.of(), false))).length;
    }

    @Test
    void aJoinNamesItsTerms() {
        ClusterTerms terms = new ClusterTerms(4, 2, 1024, 604_800);
        Envelope join = new Envelope(ALICE, 9, new JoinRequest(ALICE, 77, 3, terms));
        byte[] newest = codec.encode(join);

        assertThat(codec.decode(newest)).isEqualTo(join);
        assertThat(hex(newest)).endsWith("01" + "00000004" + "00000002" + "00000400" + "00093a80");
        assertThat(codec.decode(codec.encode(new Envelope(ALICE, 9, new JoinRequest(ALICE, 77, 3, null)))).body())
                .isEqualTo(new JoinRequest(ALICE, 77, 3, null));
    }

    @Test
    void anAnswerProvesItsId() {
        IdProof proof = new IdProof(Bytes.wrap(new byte[32]), Bytes.fromHex("ab".repeat(64)));
        Envelope answer = new Envelope(ALICE, 9, new ChallengeAnswer(proof));
        byte[] newest = codec.encode(answer);
        byte[] none = codec.encode(new Envelope(ALICE, 9, new ChallengeAnswer(null)));

        assertThat(codec.decode(newest)).isEqualTo(answer);
        assertThat(newest.length - none.length).as("a key and a signature after the presence byte").isEqualTo(96);
        assertThat(hex(newest)).endsWith("01" + "00".repeat(32) + "ab".repeat(64));
        assertThat(((ChallengeAnswer) codec.decode(none).body()).proof()).isNull();
        assertThatThrownBy(() -> codec.encode(new Envelope(ALICE, 9, new ChallengeAnswer(
                new IdProof(Bytes.wrap(new byte[31]), Bytes.wrap(new byte[64]))))))
                .isInstanceOf(CodecException.class).hasMessageContaining("32-byte public key");
    }

    @Test
    void theVersionBeforeTheOldestIsRefusedWithAClearError() {
        byte[] frame = codec.encode(new Envelope(null, 1, new Ping()));
        frame[0] = (byte) (MessageCodec.VERSION_OLDEST - 1);

        assertRejected(frame, "unsupported version 13: this node speaks version 17 and accepts 14 to 16 (the sender "
                + "runs an older Rattan");
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 18, 255})
    void wrongVersionIsRejected(int version) {
        byte[] frame = codec.encode(new Envelope(null, 1, new Ping()));
        frame[0] = (byte) version;

        assertRejected(frame, "unsupported version " + version);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 8, 99, 127, 128, 255})
    void unknownTagIsRejected(int tag) {
        byte[] frame = codec.encode(new Envelope(null, 1, new Ping()));
        frame[1] = (byte) tag;

        assertRejected(frame, "unknown message type tag " + tag);
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 0x80, 0xFF})
    void unknownFlagsAreRejected(int flags) {
        byte[] frame = codec.encode(new Envelope(null, 1, new Ping()));
        frame[2] = (byte) flags;

        assertRejected(frame, "unknown flags");
    }

    @ParameterizedTest
    @MethodSource("sampleEnvelopes")
    void trailingBytesAreRejected(Envelope envelope) {
        byte[] frame = Arrays.copyOf(codec.encode(envelope), codec.encodedSize(envelope) + 1);

        assertRejected(frame, "1 trailing bytes");
    }

    @ParameterizedTest
    @MethodSource("sampleEnvelopes")
    void everyTruncationIsRejected(Envelope envelope) {
        byte[] frame = codec.encode(envelope);
        for (int length = 0; length < frame.length; length++) {
            int n = length;
            assertThatThrownBy(() -> codec.decode(frame, 0, n)).isInstanceOf(CodecException.class);
        }
    }

    /** Every byte of every sample set to values that break lengths, counts, booleans and signs. */
    @ParameterizedTest
    @MethodSource("sampleEnvelopes")
    void everySingleByteCorruptionDecodesCanonicallyOrIsRejected(Envelope envelope) {
        byte[] frame = codec.encode(envelope);
        for (int at = 0; at < frame.length; at++) {
            for (int value : new int[] {0, 1, 2, 0x7F, 0x80, 0xFE, 0xFF}) {
                byte[] corrupt = frame.clone();
                corrupt[at] = (byte) value;
                Envelope decoded;
                try {
                    decoded = codec.decode(corrupt);
                } catch (CodecException expected) {
                    continue;
                }
                assertThat(codec.at(corrupt[0] & 0xFF).encode(decoded)).isEqualTo(corrupt);
            }
        }
    }

    @Test
    void booleanOtherThanZeroOrOneIsRejected() {
        byte[] frame = codec.encode(new Envelope(null, 1, new JoinInfo(List.of(), true)));
        assertThat(frame[frame.length - 1]).isEqualTo((byte) 1);
        frame[frame.length - 1] = 2;

        assertRejected(frame, "boolean fromRoot is 2");
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "c328",     // a lead byte without its continuation
        "c0af",     // overlong '/'
        "80",       // a lone continuation byte
        "eda080",   // an encoded surrogate
        "f4908080", // above U+10FFFF
        "e282",     // a truncated three-byte form
        "ff"})
    void malformedUtf8IsRejected(String utf8Hex) {
        byte[] bad = HexFormat.of().parseHex(utf8Hex);
        byte[] frame = concat(hexBytes("104600" + "0000000000000001" + "00"), u16(bad.length), bad);

        assertRejected(frame, "detail is not well-formed UTF-8");
    }

    @Test
    void malformedUtf8InAHostIsRejected() {
        byte[] frame = concat(hexBytes("100101"), KEY.toBytes(), hexBytes("02" + "c328" + "0fa0" + "0fa1"),
                hexBytes("0000000000000001"));

        assertRejected(frame, "sender is not well-formed UTF-8");
    }

    @Test
    void aPongWithTwoSuggestionsIsRejected() {
        byte[] contact = concat(KEY.toBytes(), hexBytes("01" + "61" + "0fa0" + "0fa1"));
        byte[] frame = concat(hexBytes("100200" + "0000000000000001"), u16(2), contact, contact, new byte[8]);

        assertRejected(frame, "at most one");
    }

    @Test
    void emptyHostIsRejected() {
        byte[] frame = concat(hexBytes("100101"), KEY.toBytes(), hexBytes("00" + "0fa0" + "0fa1"),
                hexBytes("0000000000000001"));

        assertRejected(frame, "empty host");
    }

    @Test
    void anUnknownConsistencyIsRejected() {
        assertRejected(withLastBytes(ClientGet.of(KEY).page(1, Bytes.EMPTY), 6, "02" + "00000000" + "00"),
                "unknown consistency 2");
    }

    @ParameterizedTest
    @ValueSource(ints = {15, 0x7F, 0xFF})
    void unknownStatusIsRejected(int code) {
        byte[] frame = codec.encode(new Envelope(null, 1, new RemoveReplicaReply(Status.OK)));
        frame[frame.length - 1] = (byte) code;

        assertRejected(frame, "unknown status code " + code);
    }

    @Test
    void negativeCountsAndTimesAreRejected() {
        assertRejected(withLastBytes(new ClientPut(KEY, Bytes.EMPTY, 1, Bytes.EMPTY), 18,
                "ffffffff" + "00000000" + "00" + "00" + "0000000000000000"), "ttlSeconds is negative");
        assertRejected(withLastBytes(new StoreAck(1), 4, "80000000"), "accepted is negative");
        assertRejected(withLastBytes(new PutReply(Status.OK, 1, ""), 7, "ffffffff" + "0000" + "00"),
                "replicas is negative");
        assertRejected(withLastBytes(ClientGet.of(KEY).page(1, Bytes.EMPTY), 20, "ffffffff" + "00000000" + "00000000"
                + "00" + "00" + "00" + "00000000" + "00"), "maxValues is negative");
        assertRejected(withLastBytes(ClientGet.of(KEY).page(1, Bytes.EMPTY), 12, "ffffffff" + "00" + "00" + "00"
                + "00000000" + "00"), "parallelism is negative");
        assertRejected(withLastBytes(ClientGet.of(KEY).page(1, Bytes.EMPTY), 5, "ffffffff" + "00"),
                "readReplicas is negative");
        assertRejected(withLastBytes(new GetRequest(KEY, 1, Bytes.EMPTY, ALICE, 1, 0), 5, "80000000" + "00"),
                "readQuorum is negative");
        assertRejected(withLastBytes(new GetReply(Status.OK, List.of(), Bytes.EMPTY, 0, ""), 4, "ffffffff"),
                "replicasRead is negative");
        assertRejected(withLastBytes(new ReplicaRead(KEY, Bytes.EMPTY, 1), 5, "ffffffff" + "00"),
                "maxRecords is negative");
        ReplicaRecord record = new ReplicaRecord(KEY, Bytes.EMPTY, Bytes.EMPTY, 1, Bytes.EMPTY, Bytes.EMPTY, false);
        assertRejected(withLastBytes(new StoreReplicas(List.of(record)), 19, "8000000000000000" + "00000000"
                + "00000000" + "00" + "00" + "00"),
                "expiresAtMillis is negative");
    }

    @ParameterizedTest
    @ValueSource(strings = {"00000100", "ffffffff", "80000000"})
    void hopsOutOfRangeAreRejected(String hops) {
        assertRejected(withLastBytes(new JoinRequest(ALICE, 1, 0, null), 5, hops + "00"), "hops out of range");
    }

    @ParameterizedTest
    @ValueSource(strings = {"01000000000000", "00010000000300"})
    void getOptionsThatDoNotFitTogetherAreRejected(String oneHopConsistencyRFilter) {
        // The last bytes of a client get are one-hop (1), consistency (1), R (4) and the filter (1: none); the get is
        // iterative.
        ClientGet iterative = ClientGet.of(KEY, GetOptions.of(RoutingMode.ITERATIVE));
        assertRejected(withLastBytes(iterative, 7, oneHopConsistencyRFilter), "cannot be iterative");
    }

    @Test
    void rWithoutQuorumIsRejected() {
        assertRejected(withLastBytes(ClientGet.of(KEY), 6, "000000000300"), "use it with consistency=quorum");
    }

    // ---- decode: lengths and counts that would allocate more than the frame holds ----

    @ParameterizedTest
    @ValueSource(strings = {"80000000", "ffffffff", "7fffffff", "00010001"})
    void hugeValueLengthInASmallFrameIsRejectedQuickly(String length) {
        byte[] frame = concat(hexBytes("103c00" + "0000000000000001"), KEY.toBytes(), hexBytes(length));

        assertThatThrownBy(() -> codec.decode(frame)).isInstanceOf(CodecException.class)
                .hasMessageContaining("value length");
        assertThat(bytesAllocatedRejecting(frame)).isLessThan(REJECTION_BYTES_MAX);
    }

    @Test
    void valueLengthAboveTheBoundIsRejectedEvenWhenTheBytesArePresent() {
        int length = MessageCodec.VALUE_BYTES_MAX + 1;
        byte[] frame = concat(hexBytes("103c00" + "0000000000000001"), KEY.toBytes(), i32(length),
                new byte[length], hexBytes("00000000" + "00000000"));

        assertRejected(frame, "value length 65537 exceeds 65536");
    }

    @ParameterizedTest
    @ValueSource(ints = {0xFFFF, 4097, 4096, 1})
    void hugeListCountInTwentyBytesIsRejectedQuickly(int count) {
        byte[] frame = Arrays.copyOf(concat(hexBytes("100c00" + "0000000000000001"), u16(count)), 20);

        assertThatThrownBy(() -> codec.decode(frame)).isInstanceOf(CodecException.class)
                .hasMessageContaining("leafSet count " + count);
        assertThat(bytesAllocatedRejecting(frame)).isLessThan(REJECTION_BYTES_MAX);
    }

    /**
     * What rejecting a frame may allocate: the exception and its message, never room for what a length or count
     * claims. (A decoder that sized a buffer or list from the claim would allocate up to 2 GiB here; a rejection
     * allocates about 3.6 KiB.)
     */
    private static final long REJECTION_BYTES_MAX = 64 * 1024;

    /**
     * The bytes this thread allocates while {@code codec.decode(frame)} is rejected, the least of 5 tries (the first
     * may load classes); the heap's allocation counter, not the clock, so a loaded machine cannot fail it.
     */
    private long bytesAllocatedRejecting(byte[] frame) {
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        org.junit.jupiter.api.Assumptions.assumeTrue(mx instanceof com.sun.management.ThreadMXBean
                && ((com.sun.management.ThreadMXBean) mx).isThreadAllocatedMemorySupported(),
                "this JVM does not count allocated bytes per thread");
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) mx;
        long least = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            long before = threads.getCurrentThreadAllocatedBytes();
            try {
                codec.decode(frame);
            } catch (CodecException expected) {
                // the rejection is what is measured
            }
            least = Math.min(least, threads.getCurrentThreadAllocatedBytes() - before);
        }
        return least;
    }

    @Test
    void hugeStringLengthIsRejected() {
        assertRejected(concat(hexBytes("104600" + "0000000000000001" + "00"), u16(0xFFFF)),
                "detail of 65535 bytes exceeds 4096");
        assertRejected(concat(hexBytes("104600" + "0000000000000001" + "00"), u16(100), new byte[10]),
                "truncated frame");
    }

    @Test
    void hashAndSecretBoundsAreEnforced() {
        byte[] hashTooLong = concat(hexBytes("102a00" + "0000000000000001"), KEY.toBytes(), i32(65), new byte[65],
                i32(0), i32(0));
        byte[] secretTooLong = concat(hexBytes("102a00" + "0000000000000001"), KEY.toBytes(), i32(0), i32(1025),
                new byte[1025], i32(0));

        assertRejected(hashTooLong, "valueHash length 65 exceeds 64");
        assertRejected(secretTooLong, "secret length 1025 exceeds 1024");
    }

    @Test
    void frameAboveFrameBytesMaxIsRejected() {
        MessageCodec small = new MessageCodec(16);

        assertThatThrownBy(() -> small.decode(new byte[17])).isInstanceOf(CodecException.class)
                .hasMessageContaining("exceeds frameBytesMax 16");
    }

    @Test
    void rangeOutsideTheArrayIsRejected() {
        byte[] frame = codec.encode(new Envelope(null, 1, new Ping()));

        assertThatThrownBy(() -> codec.decode(frame, 1, frame.length)).isInstanceOf(CodecException.class);
        assertThatThrownBy(() -> codec.decode(frame, -1, 2)).isInstanceOf(CodecException.class);
        assertThatThrownBy(() -> codec.decode(frame, 0, -1)).isInstanceOf(CodecException.class);
        assertThatThrownBy(() -> codec.decode(frame, Integer.MAX_VALUE, 2)).isInstanceOf(CodecException.class);
        assertThatThrownBy(() -> codec.decode(new byte[0])).isInstanceOf(CodecException.class);
    }

    // ---- encode: refuses what decode would reject ----

    @Test
    void valueAtTheBoundEncodes() {
        Envelope envelope = new Envelope(ALICE, 1, new ClientPut(KEY, Bytes.wrap(new byte[65536]), 1, Bytes.EMPTY));

        assertThat(codec.decode(codec.encode(envelope))).isEqualTo(envelope);
    }

    @Test
    void oversizeValueIsRefused() {
        Bytes big = Bytes.wrap(new byte[MessageCodec.VALUE_BYTES_MAX + 1]);

        assertRefused(new ClientPut(KEY, big, 1, Bytes.EMPTY), "value of 65537 bytes exceeds 65536");
        assertRefused(new PutRequest(KEY, big, 1, 1, Bytes.EMPTY, ALICE, 1, 1), "value of 65537 bytes");
        assertRefused(new GetReply(Status.OK, List.of(new ValueEntry(big, 1)), Bytes.EMPTY, 0, ""),
                "value of 65537 bytes");
        assertRefused(new StoreReplicas(List.of(new ReplicaRecord(KEY, HASH, big, 1, Bytes.EMPTY, Bytes.EMPTY, false))),
                "value of 65537 bytes");
    }

    /** Version 8: an owned put carries its owner's stamp after the binding, fixed-width fields, no lengths. */
    @Test
    void anOwnerStampFollowsThePutsFieldsAndIsCheckedOnTheWayIn() {
        OwnerStamp stamp = new OwnerStamp(Bytes.wrap(filled(32, 0x11)), 5, -1L, 0x0102, Bytes.wrap(filled(64, 0x22)));
        Envelope put = new Envelope(null, 0, new ClientPut(KEY, Bytes.fromHex("aa"), 0, Bytes.EMPTY, stamp,
                PutCondition.ifSeq(7)));
        byte[] frame = codec.encode(put);
        assertThat(hex(frame)).isEqualTo("113c00" + "0000000000000000" + KEY.toHex() + "00000001aa" + "00000000"
                + "00000000" + "01" + "11".repeat(32) + "0000000000000005" + "ffffffffffffffff" + "0000000000000102"
                + "22".repeat(64) + "02" + "0000000000000007");
        assertThat(codec.decode(frame)).isEqualTo(put);

        int condition = frame.length - 9;
        byte[] badMarker = frame.clone();
        badMarker[condition - 1 - 64 - 24 - 32] = 2;
        assertRejected(badMarker, "stamp marker is 2");
        byte[] farExpiry = frame.clone();
        farExpiry[condition - 64 - 8] = 0x7f;
        assertRejected(farExpiry, "expiresAtSeconds");
        assertRejected(java.util.Arrays.copyOf(frame, condition - 1), "signature");
        byte[] badKind = frame.clone();
        badKind[condition] = 3;
        assertRejected(badKind, "unknown condition 3");
        byte[] absentWithSeq = frame.clone();
        absentWithSeq[condition] = 1;
        assertRejected(absentWithSeq, "names sequence 7");
    }

    private static byte[] filled(int n, int b) {
        byte[] a = new byte[n];
        java.util.Arrays.fill(a, (byte) b);
        return a;
    }

    @Test
    void frameAboveFrameBytesMaxIsRefused() {
        MessageCodec small = new MessageCodec(64);
        Envelope fits = new Envelope(null, 1, new ClientPut(KEY, Bytes.wrap(new byte[11]), 1, Bytes.EMPTY));
        Envelope tooBig = new Envelope(null, 1, new ClientPut(KEY, Bytes.wrap(new byte[12]), 1, Bytes.EMPTY));

        assertThat(small.encode(fits)).hasSize(64);
        assertThatThrownBy(() -> small.encode(tooBig)).isInstanceOf(CodecException.class)
                .hasMessageContaining("frame of 65 bytes exceeds frameBytesMax 64");
        assertThatThrownBy(() -> small.encodedSize(tooBig)).isInstanceOf(CodecException.class);
    }

    @Test
    void defaultFrameBytesMaxRefusesAFullStoreOfLargeValues() {
        Bytes value = Bytes.wrap(new byte[MessageCodec.VALUE_BYTES_MAX]);
        List<ReplicaRecord> records = Collections.nCopies(16,
                new ReplicaRecord(KEY, HASH, value, 1, Bytes.EMPTY, Bytes.EMPTY, false));

        assertThat(codec.frameBytesMax()).isEqualTo(MessageCodec.DEFAULT_FRAME_BYTES_MAX);
        assertRefused(new StoreReplicas(records), "exceeds frameBytesMax 1048576");
    }

    @Test
    void theRingRequestAndItsPageHaveTheDocumentedBytes() {
        byte[] request = codec.encode(new Envelope(null, 5, new ClientRing(Bytes.EMPTY, 2)));
        assertThat(request).containsExactly(17, 63, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 2);
        byte[] reply = codec.encode(new Envelope(null, 5, new RingReply(List.of(), Bytes.EMPTY, 3)));
        assertThat(reply).containsExactly(17, 34, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3);
        // A count of nodes the frame cannot hold is refused before anything is allocated.
        byte[] lying = reply.clone();
        lying[11] = 0x10;
        assertThatThrownBy(() -> codec.decode(lying)).isInstanceOf(CodecException.class);
    }

    @Test
    void aWatchEventHasTheDocumentedBytes() {
        byte[] frame = codec.encode(new Envelope(null, 5, WatchEvent.ended(Status.RATE_LIMITED, "x")));
        // version, tag, flags, request id; kind ENDED; epoch 0; seq 0; empty hash; empty value; ttl 0; no stamp;
        // status; detail "x".
        assertThat(frame).containsExactly(17, 35, 0, 0, 0, 0, 0, 0, 0, 0, 5, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10, 0, 1, 'x');
        byte[] unknownKind = frame.clone();
        unknownKind[11] = 9;
        assertThatThrownBy(() -> codec.decode(unknownKind)).isInstanceOf(CodecException.class)
                .hasMessageContaining("unknown watch event kind 9");
    }

    @Test
    void fieldBoundsAreRefused() {
        assertRefused(new Watch(KEY, 1, -1, false, Bytes.EMPTY), "leaseMillis is negative");
        assertRefused(new WatchChange(KEY, 1, -1, List.of()), "number is negative");
        assertRefused(new ClientPut(KEY, Bytes.EMPTY, 1, Bytes.wrap(new byte[65])), "binding of 65 bytes");
        assertRefused(new PutRequest(KEY, Bytes.EMPTY, 1, 1, Bytes.wrap(new byte[65]), ALICE, 1, 0),
                "binding of 65 bytes");
        assertRefused(new StoreReplicas(List.of(new ReplicaRecord(KEY, HASH, Bytes.EMPTY, 1, Bytes.EMPTY,
                Bytes.wrap(new byte[1025]), true))), "secret of 1025 bytes");
        assertRefused(ClientGet.of(KEY).page(1, Bytes.wrap(new byte[65])), "placemark of 65 bytes");
        assertRefused(new ClientRemove(KEY, Bytes.EMPTY, Bytes.wrap(new byte[1025]), 1), "secret of 1025 bytes");
        assertRefused(new ClientRing(Bytes.wrap(new byte[65]), 1), "placemark of 65 bytes");
        assertRefused(new ClientRing(Bytes.EMPTY, -1), "maxNodes is negative");
        assertRefused(new RingReply(List.of(), Bytes.EMPTY, -1), "replicas is negative");
        assertRefused(new RingReply(Collections.nCopies(4097, ALICE), Bytes.EMPTY, 3), "nodes has 4097 elements");
        assertRefused(new ErrorReply(Status.OK, "x".repeat(4097)), "detail of 4097 UTF-8 bytes exceeds 4096");
        assertRefused(new ErrorReply(Status.OK, "é".repeat(2049)), "detail of 4098 UTF-8 bytes");
        assertRefused(new LeafExchange(Collections.nCopies(4097, ALICE)), "leafSet has 4097 elements");
        assertRefused(new ClientPut(KEY, Bytes.EMPTY, -1, Bytes.EMPTY), "ttlSeconds is negative");
        assertRefused(new GetRequest(KEY, -1, Bytes.EMPTY, ALICE, 1, 0), "maxValues is negative");
        assertRefused(new PutReply(Status.OK, -1, ""), "replicas is negative");
        assertRefused(new StoreAck(-1), "accepted is negative");
        assertRefused(new JoinRequest(ALICE, 1, 256, null), "hops out of range");
        assertRefused(new GetReply(Status.OK, List.of(), Bytes.EMPTY, -1, ""), "hops out of range");
        assertRefused(new GetReply(Status.OK, List.of(new ValueEntry(Bytes.EMPTY, -1)), Bytes.EMPTY, 0, ""),
                "ttlRemainingMillis is negative");
    }

    @Test
    void boundsThemselvesEncode() {
        List<Message> atBounds = List.of(
                new ClientPut(KEY, Bytes.EMPTY, Integer.MAX_VALUE, Bytes.wrap(new byte[64])),
                new ClientRemove(KEY, Bytes.wrap(new byte[64]), Bytes.wrap(new byte[1024]), 0),
                new StoreReplicas(List.of(new ReplicaRecord(KEY, HASH, Bytes.EMPTY, Long.MAX_VALUE, Bytes.EMPTY,
                        Bytes.wrap(new byte[1024]), true))),
                new ErrorReply(Status.OK, "x".repeat(4096)),
                new LeafExchange(Collections.nCopies(4096, ALICE)),
                new JoinRequest(ALICE, Long.MIN_VALUE, 255, null));
        for (Message m : atBounds) {
            Envelope envelope = new Envelope(null, Long.MAX_VALUE, m);
            assertThat(codec.decode(codec.encode(envelope))).isEqualTo(envelope);
        }
    }

    @Test
    void unencodableTextIsRefused() {
        assertRefused(new ErrorReply(Status.OK, "a\uD800b"), "unpaired surrogate at index 1");
        assertRefused(new ErrorReply(Status.OK, "\uDC00"), "unpaired surrogate");
        assertRefused(new ErrorReply(Status.OK, "end\uD800"), "unpaired surrogate");
        // 128 two-byte characters: within Address's 255 characters, beyond the wire's 255 bytes.
        Contact wide = new Contact(KEY, new Address("é".repeat(128), 1));
        assertRefused(new JoinRequest(wide, 1, 0, null), "joiner host of 256 UTF-8 bytes exceeds 255");
        Contact widest = new Contact(KEY, new Address("é".repeat(127) + "a", 1));
        assertThat(codec.decode(codec.encode(new Envelope(widest, 1, new Ping()))).sender()).isEqualTo(widest);
    }

    @Test
    void nullFieldsAreRefused() {
        assertRefused(new ErrorReply(Status.OK, null), "detail is null");
        assertRefused(new ErrorReply(null, "x"), "status is null");
        assertRefused(ClientGet.of(null).page(1, Bytes.EMPTY), "key is null");
        assertRefused(ClientGet.of(KEY).page(1, null), "placemark is null");
        assertRefused(new PutRequest(KEY, Bytes.EMPTY, 1, 1, Bytes.EMPTY, null, 1, 0), "origin is null");
    }

    @Test
    void frameBytesMaxMustBePositive() {
        assertThatIllegalArgumentException().isThrownBy(() -> new MessageCodec(0));
        assertThatCode(() -> new MessageCodec(1)).doesNotThrowAnyException();
    }

    @Test
    void asciiFastPathAndStrictPathAgree() {
        String text = "plain ascii then ü";
        Envelope envelope = new Envelope(null, 1, new ErrorReply(Status.OK, text));
        byte[] frame = codec.encode(envelope);

        // The detail is followed by the 4-byte retryAfterMillis.
        int end = frame.length - 4;
        assertThat(Arrays.copyOfRange(frame, end - text.getBytes(StandardCharsets.UTF_8).length, end))
                .isEqualTo(text.getBytes(StandardCharsets.UTF_8));
        assertThat(codec.decode(frame)).isEqualTo(envelope);
    }

    // ---- helpers ----

    private void assertRejected(byte[] frame, String messagePart) {
        assertThatThrownBy(() -> codec.decode(frame)).isInstanceOf(CodecException.class)
                .hasMessageContaining(messagePart);
    }

    private void assertRefused(Message body, String messagePart) {
        Envelope envelope = new Envelope(null, 1, body);
        assertThatThrownBy(() -> codec.encode(envelope)).isInstanceOf(CodecException.class)
                .hasMessageContaining(messagePart);
        assertThatThrownBy(() -> codec.encodedSize(envelope)).isInstanceOf(CodecException.class)
                .hasMessageContaining(messagePart);
    }

    /** The frame of {@code body} with its last {@code count} bytes replaced by {@code hex}. */
    private byte[] withLastBytes(Message body, int count, String hex) {
        byte[] frame = codec.encode(new Envelope(null, 1, body));
        byte[] tail = hexBytes(hex);
        assertThat(tail).hasSize(count);
        System.arraycopy(tail, 0, frame, frame.length - count, count);
        return frame;
    }

    private static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }

    private static byte[] hexBytes(String hex) {
        return HexFormat.of().parseHex(hex);
    }

    private static byte[] u16(int v) {
        return new byte[] {(byte) (v >>> 8), (byte) v};
    }

    private static byte[] i32(int v) {
        return new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}
