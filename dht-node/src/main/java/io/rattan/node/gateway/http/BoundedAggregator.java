package io.rattan.node.gateway.http;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.ReferenceCountUtil;

/**
 * Netty's aggregator with the gateway's answer to an oversized body: a 413 problem, after which the connection is
 * closed (the rest of the body may already be on its way, and reading it only to discard it is the client's cost to
 * bear, not ours). A client that asked {@code Expect: 100-continue} gets the same problem instead of the go-ahead.
 */
final class BoundedAggregator extends HttpObjectAggregator {

    private final int valueBytesMax;

    /** Reads bodies up to {@code maxContentBytes}; {@code valueBytesMax} is the limit the problem tells the client. */
    BoundedAggregator(int maxContentBytes, int valueBytesMax) {
        super(maxContentBytes, true);
        this.valueBytesMax = valueBytesMax;
    }

    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) throws Exception {
        if (!(oversized instanceof HttpRequest)) {
            super.handleOversizedMessage(ctx, oversized);
            return;
        }
        ctx.writeAndFlush(HttpGatewayHandler.toNetty(tooLarge(), false)).addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    protected Object newContinueResponse(HttpMessage start, int maxContentLength, ChannelPipeline pipeline) {
        Object response = super.newContinueResponse(start, maxContentLength, pipeline);
        if (response instanceof HttpResponse
                && ((HttpResponse) response).status().code() == HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE.code()) {
            ReferenceCountUtil.release(response);
            return HttpGatewayHandler.toNetty(tooLarge(), false);
        }
        return response;
    }

    private ApiResponse tooLarge() {
        return Problems.tooLarge("the request body is larger than " + maxContentLength()
                + " bytes; this node accepts values of at most " + valueBytesMax + " bytes");
    }
}
