/**
 * The values an HTTP gateway keeps alive for its clients ({@code ?permanent=true}): re-put before their TTL ends
 * until removed, listed on disk so that a restarted gateway goes on ({@link io.rattan.node.gateway.permanent.PermanentValues}).
 */
package io.rattan.node.gateway.permanent;
