/**
 * The HTTP/JSON API of DESIGN.md: {@link io.rattan.node.gateway.http.HttpGateway} accepts connections whose pipeline
 * is HTTP codec → bounded aggregation → a thin handler; a router that knows nothing of Netty hands each request to
 * its resource (keys, admin listing, node state), which checks the input and writes the JSON.
 * {@link io.rattan.node.gateway.http.KeyParser} is shared with the command line.
 */
package io.rattan.node.gateway.http;
