package io.rattan.node.gateway.binary;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.rattan.core.codec.MessageCodec;
import io.rattan.node.gateway.ClientGuard;
import io.rattan.node.limits.ConnectionLimits;
import io.rattan.node.netty.TransportListener;

/**
 * Coverage-guided fuzzing of the binary gateway's whole inbound pipeline (framing, codec, handler), issue 18: any
 * bytes leave the connection either open or closed, never an exception past the pipeline, and every reply it writes
 * is a well-formed frame. A normal build replays the committed corpus in
 * {@code src/test/resources/io/rattan/node/gateway/binary/ClientGatewayFuzzTestInputs/binaryFrames/}.
 */
class ClientGatewayFuzzTest {

    private static final MessageCodec CODEC = new MessageCodec();

    @FuzzTest(maxExecutions = 1_000_000)
    void binaryFrames(byte[] bytes) {
        EmbeddedChannel channel = new EmbeddedChannel(new ClientGatewayInitializer(CODEC,
                new RecordingGatewayBackend(), ClientGuard.none(), 16, TransportListener.NONE,
                ConnectionLimits.defaults()));
        try {
            channel.writeInbound(Unpooled.wrappedBuffer(bytes));
            channel.runPendingTasks();
            channel.checkException();
            for (Object out = channel.readOutbound(); out != null; out = channel.readOutbound()) {
                ByteBuf frame = (ByteBuf) out;
                try {
                    int length = frame.readInt();
                    assertThat(frame.readableBytes()).isEqualTo(length);
                    CODEC.decode(ByteBufUtil.getBytes(frame));
                } finally {
                    frame.release();
                }
            }
        } finally {
            channel.finishAndReleaseAll();
        }
    }
}
