/**
 * The HTTP/JSON API of DESIGN.md: {@link io.rattan.node.gateway.http.HttpGateway} accepts connections whose pipeline
 * is HTTP codec → bounded aggregation → a thin handler; the routes, input checks and JSON live in a router that knows
 * nothing of Netty. {@link io.rattan.node.gateway.http.KeyParser} is shared with the command line.
 */
package io.rattan.node.gateway.http;
