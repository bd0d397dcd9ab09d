package io.rattan.core.msg;

/** What a {@link WatchMessages.WatchEvent} tells; the code is its wire encoding. */
public enum WatchKind {
    /** A value new to the watch, or a newer sequence of an owned value. */
    VALUE(0),
    /** The values live when the watch began have all been delivered; every later event is a change. */
    READY(1),
    /** A value was removed. */
    REMOVED(2),
    /** A value's TTL ended. */
    EXPIRED(3),
    /** The watch ended (the event's status says why); no event follows. */
    ENDED(4);

    private final int code;

    WatchKind(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** The kind of a wire code, or null when the code is unknown. */
    public static WatchKind fromCode(int code) {
        for (WatchKind k : values()) {
            if (k.code == code) {
                return k;
            }
        }
        return null;
    }
}
