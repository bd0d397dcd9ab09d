package io.rattan.client;

import io.rattan.core.msg.Message;

/**
 * Who hears the frames of a request answered by a stream (a watch) on a {@link Connection}: every frame with its
 * request id, in order, on the connection's event loop; then, unless it was ended first, the connection's failure.
 */
interface StreamSink {

    /** A frame of the stream; on the connection's event loop. */
    void onFrame(Message frame);

    /** The stream is gone with its connection (or never got out); any thread. Called at most once. */
    void onClosed(RattanException failure);
}
