package io.rattan.client.arch.leak;

import io.rattan.core.msg.Envelope;

/** Package-private, but its public method is {@link LeakyApi}'s API: {@code PublicApiTest} must find the leak. */
abstract class LeakyBase {

    /** A core type as the return type of an inherited method. */
    public Envelope inherited() {
        return null;
    }
}
