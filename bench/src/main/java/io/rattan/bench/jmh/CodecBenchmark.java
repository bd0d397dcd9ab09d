package io.rattan.bench.jmh;

import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Cost;
import io.rattan.api.Id;
import io.rattan.api.RoutingMode;
import io.rattan.api.Status;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.MembershipMessages.HopAck;
import io.rattan.core.msg.MembershipMessages.LeafExchange;
import io.rattan.core.msg.MembershipMessages.Ping;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.ReplicaMessages.ReplicaRecord;
import io.rattan.core.msg.ReplicaMessages.StoreReplicas;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.GetRequest;
import io.rattan.core.msg.RequestMessages.PutRequest;
import io.rattan.core.msg.RequestMessages.ValueEntry;
import io.rattan.core.net.Contact;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/** Encoding and decoding one envelope of each message type that a get, a put or maintenance sends most. */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class CodecBenchmark {

    @Param({"PING", "HOP_ACK", "CLIENT_GET", "GET_REQUEST", "GET_REPLY_1", "GET_REPLY_16", "PUT_REQUEST",
            "STORE_REPLICAS_64", "LEAF_EXCHANGE_16"})
    public String message;

    private final MessageCodec codec = new MessageCodec();
    private Envelope envelope;
    private byte[] frame;

    @Setup
    public void setUp() {
        SplittableRandom random = new SplittableRandom(7);
        Contact sender = contact(random);
        envelope = new Envelope(sender, 42, message(message, random));
        frame = codec.encode(envelope);
    }

    static Contact contact(SplittableRandom random) {
        return new Contact(Id.random(random), new Address("127.0.0.1", 4000 + random.nextInt(1000)));
    }

    static Bytes value(SplittableRandom random) {
        byte[] b = new byte[1024];
        random.nextBytes(b);
        return Bytes.wrap(b);
    }

    static Message message(String name, SplittableRandom random) {
        Id key = Id.random(random);
        Contact origin = contact(random);
        switch (name) {
            case "PING":
                return new Ping();
            case "HOP_ACK":
                return new HopAck();
            case "CLIENT_GET":
                return ClientGet.of(key);
            case "GET_REQUEST":
                return new GetRequest(key, RoutingMode.DELAY_AWARE, 0, Bytes.EMPTY, origin, 9, 2, false, Cost.ZERO);
            case "GET_REPLY_1":
                return getReply(1, random);
            case "GET_REPLY_16":
                return getReply(16, random);
            case "PUT_REQUEST":
                return new PutRequest(key, value(random), 3600, 1_700_000_003_600_000L, value(random).sha256(), origin, 9, 1);
            case "STORE_REPLICAS_64":
                List<ReplicaRecord> records = new ArrayList<>();
                for (int i = 0; i < 64; i++) {
                    Bytes v = value(random);
                    records.add(new ReplicaRecord(Id.random(random), v.sha256(), v, 600_000, Bytes.EMPTY, Bytes.EMPTY,
                            false));
                }
                return new StoreReplicas(records);
            case "LEAF_EXCHANGE_16":
                List<Contact> leaves = new ArrayList<>();
                for (int i = 0; i < 16; i++) {
                    leaves.add(contact(random));
                }
                return new LeafExchange(leaves);
            default:
                throw new IllegalArgumentException("no such message: " + name);
        }
    }

    private static GetReply getReply(int values, SplittableRandom random) {
        List<ValueEntry> entries = new ArrayList<>();
        for (int i = 0; i < values; i++) {
            entries.add(new ValueEntry(value(random), 600_000));
        }
        return new GetReply(Status.OK, entries, Bytes.EMPTY, 2, "");
    }

    @Benchmark
    public byte[] encode() {
        return codec.encode(envelope);
    }

    @Benchmark
    public Envelope decode() {
        return codec.decode(frame);
    }
}
