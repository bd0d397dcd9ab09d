package io.rattan.node.gateway.binary;

import static io.rattan.node.netty.TestMessages.CODEC;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.node.netty.TransportListener;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The binary gateway's pipeline on an {@link EmbeddedChannel}, with a backend the test answers by hand. */
class ClientGatewayHandlerTest {

    private final RecordingGatewayBackend backend = new RecordingGatewayBackend();
    private final AtomicLong bytesSent = new AtomicLong();
    private final EmbeddedChannel channel = new EmbeddedChannel(new ClientGatewayInitializer(CODEC, backend,
            io.rattan.node.gateway.ClientGuard.none(), ClientGatewayServer.IN_FLIGHT_MAX, new TransportListener() {
                @Override
                public void bytesSent(long bytes) {
                    bytesSent.addAndGet(bytes);
                }
            }, io.rattan.node.limits.ConnectionLimits.defaults()));

    @AfterEach
    void release() {
        channel.finishAndReleaseAll();
    }

    @Test
    void aRequestIsHandedToTheBackendAndItsReplyGoesBackAsOneCountedFrame() throws Exception {
        Message get = ClientGet.of(Id.ofName("k")).page(1, Bytes.EMPTY);
        channel.writeInbound(frame(new Envelope(null, 3, get)));
        RecordingGatewayBackend.Call call = backend.next();
        assertThat(call.request()).isEqualTo(get);

        Message got = new GetReply(Status.OK, List.of(), Bytes.EMPTY, 1, "");
        call.reply().complete(got);
        channel.runPendingTasks();

        assertThat(readReply()).isEqualTo(new Envelope(null, 3, got));
        assertThat(bytesSent.get()).isEqualTo(4 + CODEC.encode(new Envelope(null, 3, got)).length);
    }

    @Test
    void aReplyTheCodecRefusesBecomesAnInternalErrorForTheSameRequest() throws Exception {
        channel.writeInbound(frame(new Envelope(null, 9, ClientGet.of(Id.ofName("k")).page(1, Bytes.EMPTY))));
        String tooLong = "x".repeat(MessageCodec.STRING_BYTES_MAX + 1);
        backend.next().reply().complete(new ErrorReply(Status.NOT_FOUND, tooLong));
        channel.runPendingTasks();

        assertThat(readReply())
                .isEqualTo(new Envelope(null, 9, new ErrorReply(Status.INTERNAL, "reply could not be encoded")));
        assertThat((Object) channel.readOutbound()).isNull();
        assertThat(channel.isOpen()).isTrue();
    }

    private Envelope readReply() {
        ByteBuf frame = channel.readOutbound();
        assertThat(frame).as("a reply frame").isNotNull();
        try {
            int length = frame.readInt();
            assertThat(frame.readableBytes()).isEqualTo(length);
            byte[] body = new byte[length];
            frame.readBytes(body);
            return CODEC.decode(body);
        } finally {
            frame.release();
        }
    }

    private static ByteBuf frame(Envelope envelope) {
        byte[] body = CODEC.encode(envelope);
        return Unpooled.buffer().writeInt(body.length).writeBytes(body);
    }
}
