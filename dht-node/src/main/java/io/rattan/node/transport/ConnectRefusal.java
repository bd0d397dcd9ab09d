package io.rattan.node.transport;

import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.unix.Errors;
import io.rattan.node.netty.EventLoops;
import java.net.ConnectException;

/**
 * Whether a failed connect was refused: the peer's host answered that nothing listens on the port (ECONNREFUSED), so
 * the process is gone. Every other failure (a timeout, no route, this host's own errors such as no free port) says
 * nothing of the peer.
 */
final class ConnectRefusal {

    // The JDK's words for ECONNREFUSED; the native transport's are the C library's, which a locale may translate.
    private static final String JDK_TEXT = "Connection refused";
    private static final String NATIVE_TEXT = EventLoops.useEpoll() ? nativeText() : JDK_TEXT;

    private ConnectRefusal() {
    }

    static boolean is(Throwable cause) {
        if (!(cause instanceof ConnectException) || cause instanceof ConnectTimeoutException) {
            return false;
        }
        // Netty's message: "finishConnect(..) failed: Connection refused: /127.0.0.1:4000".
        String message = cause.getMessage();
        return message != null && (message.contains(JDK_TEXT) || message.contains(NATIVE_TEXT));
    }

    private static String nativeText() {
        String m = Errors.newIOException("", Errors.ERROR_ECONNREFUSED_NEGATIVE).getMessage();
        int at = m.indexOf("failed: ");
        return at < 0 || m.length() == at + "failed: ".length() ? JDK_TEXT : m.substring(at + "failed: ".length());
    }
}
