package io.rattan.node.limits;

/**
 * The bounds one listening port applies to its connections.
 *
 * @param total               connections open at once
 * @param perIp               connections open at once from one IP
 * @param idleMillis          a connection with no traffic for this long is closed
 * @param frameDeadlineMillis a frame must be whole this long after its first byte
 */
public record ConnectionLimits(int total, int perIp, long idleMillis, long frameDeadlineMillis) {

    public ConnectionLimits {
        if (total < 1 || perIp < 1 || perIp > total || idleMillis < 1 || frameDeadlineMillis < 1) {
            throw new IllegalArgumentException("need 1 <= perIp <= total and positive timeouts, got " + total + ", "
                    + perIp + ", " + idleMillis + " ms, " + frameDeadlineMillis + " ms");
        }
    }

    /** The defaults of {@link Limits#defaults()}. */
    public static ConnectionLimits defaults() {
        return Limits.defaults().connections();
    }
}
