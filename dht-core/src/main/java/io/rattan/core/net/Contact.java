package io.rattan.core.net;

import io.rattan.core.id.Id;

/** A node as others reach it: its id and the address it listens on for peers. */
public record Contact(Id id, Address address) {

    public Contact {
        if (id == null || address == null) {
            throw new IllegalArgumentException("a contact needs an id and an address");
        }
    }

    @Override
    public String toString() {
        return id.shortHex() + "@" + address;
    }
}
