package io.rattan.node.netty;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;
import java.util.Locale;

/**
 * Chooses the Netty transport: native epoll where it is available, NIO otherwise. Setting the system property
 * {@code rattan.transport=nio} forces NIO (for debugging, or a platform whose epoll misbehaves).
 *
 * <p>A channel must be registered on a group of its own kind, so channel classes are chosen from the group they will
 * run on, not from a global flag. Thread-safe.
 */
public final class EventLoops {

    /** The system property that forces NIO when set to {@code nio}. */
    public static final String TRANSPORT_PROPERTY = "rattan.transport";

    private EventLoops() {
    }

    /** True when new groups use native epoll. */
    public static boolean useEpoll() {
        String forced = System.getProperty(TRANSPORT_PROPERTY, "").trim().toLowerCase(Locale.ROOT);
        return !forced.equals("nio") && Epoll.isAvailable();
    }

    /**
     * A new event loop group of {@code threads} threads named {@code namePrefix-N}, daemon so that a forgotten group
     * cannot keep the JVM alive. The caller owns it and must shut it down.
     */
    public static EventLoopGroup newGroup(int threads, String namePrefix) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be positive: " + threads);
        }
        DefaultThreadFactory factory = new DefaultThreadFactory(namePrefix, true);
        return useEpoll() ? new EpollEventLoopGroup(threads, factory) : new NioEventLoopGroup(threads, factory);
    }

    /**
     * The server channel class to use on {@code group}: an epoll group (or one of its loops) needs epoll channels,
     * anything else NIO.
     */
    public static Class<? extends ServerSocketChannel> serverChannelClass(EventLoopGroup group) {
        return isEpoll(group) ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }

    /** The client socket channel class to use on {@code group}. */
    public static Class<? extends SocketChannel> socketChannelClass(EventLoopGroup group) {
        return isEpoll(group) ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    /** True when the calling thread is one of {@code group}'s loops, where blocking on the group would deadlock. */
    public static boolean inAnyLoop(EventLoopGroup group) {
        for (EventExecutor executor : group) {
            if (executor.inEventLoop()) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code group} (or a loop of it) is an epoll one. */
    public static boolean isEpoll(EventLoopGroup group) {
        // A single loop's own class is package-private in Netty; its parent group tells its kind.
        if (group instanceof EpollEventLoopGroup) {
            return true;
        }
        if (group instanceof EventLoop loop) {
            return loop.parent() instanceof EpollEventLoopGroup;
        }
        return false;
    }
}
