package io.rattan.node;

import io.rattan.core.codec.MessageCodec;

/** What this build is: the version every command reports and {@code rattan_build_info} exports. */
public final class BuildInfo {

    /** The product version. */
    public static final String VERSION = "0.1.0-SNAPSHOT";

    /** The peer protocol version this build speaks (byte 0 of every frame; docs/protocol.md). */
    public static final int PROTOCOL = MessageCodec.VERSION;

    private BuildInfo() {
    }
}
