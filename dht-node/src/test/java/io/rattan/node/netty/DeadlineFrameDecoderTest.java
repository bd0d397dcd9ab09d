package io.rattan.node.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.rattan.node.netty.TransportListener.Refusal;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A frame must be whole by its deadline, however its bytes trickle in; whole frames never trip it. */
class DeadlineFrameDecoderTest {

    private final AtomicInteger expired = new AtomicInteger();
    private final TransportListener listener = new TransportListener() {
        @Override
        public void refused(Refusal refusal) {
            if (refusal == Refusal.FRAME_DEADLINE) {
                expired.incrementAndGet();
            }
        }
    };

    private EmbeddedChannel channel() {
        EmbeddedChannel ch = new EmbeddedChannel(Frames.newFrameDecoder(1024, 1_000, listener));
        ch.freezeTime();
        return ch;
    }

    @Test
    void oneByteAnIntervalDoesNotResetTheDeadline() {
        EmbeddedChannel ch = channel();
        ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {0, 0, 0, 100}));
        for (int i = 0; i < 9; i++) {
            ch.advanceTimeBy(100, TimeUnit.MILLISECONDS);
            ch.runScheduledPendingTasks();
            ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {1}));
        }
        assertThat(ch.isOpen()).isTrue();
        ch.advanceTimeBy(150, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        assertThat(ch.isOpen()).isFalse();
        assertThat(expired).hasValue(1);
    }

    @Test
    void wholeFramesAndAFrameCompletedInTimeKeepTheConnection() {
        EmbeddedChannel ch = channel();
        for (int i = 0; i < 20; i++) {
            ch.writeInbound(frame(3));
            ch.advanceTimeBy(500, TimeUnit.MILLISECONDS);
            ch.runScheduledPendingTasks();
        }
        // A frame split over two reads 900 ms apart, then the next frame's first half: a fresh deadline.
        ByteBuf f = frame(8);
        ch.writeInbound(f.readRetainedSlice(6));
        ch.advanceTimeBy(900, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        ByteBuf rest = Unpooled.buffer().writeBytes(f).writeBytes(frame(8).readSlice(5));
        ch.writeInbound(rest);
        ch.advanceTimeBy(900, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        assertThat(ch.isOpen()).isTrue();
        assertThat(expired).hasValue(0);
        int frames = 0;
        for (Object o = ch.readInbound(); o != null; o = ch.readInbound()) {
            ((ByteBuf) o).release();
            frames++;
        }
        assertThat(frames).isEqualTo(21);
        ch.finishAndReleaseAll();
    }

    private static ByteBuf frame(int bodyBytes) {
        return Unpooled.buffer().writeInt(bodyBytes).writeBytes(new byte[bodyBytes]);
    }
}
