package io.rattan.client.arch.leak;

import io.rattan.api.Id;
import io.rattan.core.env.Clock;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.Message;
import java.util.List;

/** A public type whose signatures name dht-core types: {@code PublicApiTest}'s rule must find each. */
public abstract class LeakyApi extends LeakyBase implements Clock {

    /** A core type as a parameter. */
    public void envelope(Envelope e) {
    }

    /** A core type as a type argument of the return type. */
    public List<? extends Message> messages() {
        return List.of();
    }

    /** Package-private: not part of what a user sees. */
    void hidden(Envelope e) {
    }

    /** An API type: allowed. */
    public Id key() {
        return null;
    }
}
