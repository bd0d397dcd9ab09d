/**
 * A node's identity on disk: its Ed25519 key ({@link io.rattan.node.identity.NodeKeyFile}), whose hash is its id,
 * the id recorded for tools ({@link io.rattan.node.identity.NodeIdFile}), and the atomic, durable writes both use.
 */
package io.rattan.node.identity;
