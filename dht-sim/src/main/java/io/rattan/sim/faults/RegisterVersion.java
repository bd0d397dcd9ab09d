package io.rattan.sim.faults;

/**
 * A version an owner wrote to a compare-and-swap register: the value a {@link RegisterOp} compares against (by its
 * {@code seq}) and installs. The register's state in {@link LinearizabilityCheck} is one of these, or null while
 * nothing was written, so that "absent" needs no sentinel version.
 */
record RegisterVersion(long seq, String data) {

    /** As a violation report prints it: {@code 3:"a"}. */
    @Override
    public String toString() {
        return seq + ":\"" + data + "\"";
    }

    /** A state as a report prints it; null is the absent register. */
    static String show(RegisterVersion state) {
        return state == null ? "absent" : state.toString();
    }
}
