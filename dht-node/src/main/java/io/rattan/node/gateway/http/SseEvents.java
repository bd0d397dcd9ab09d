package io.rattan.node.gateway.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rattan.core.msg.WatchKind;
import io.rattan.core.msg.WatchMessages.WatchEvent;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * A watch's events in the text of server-sent events: {@code id}, {@code event} and one line of JSON {@code data},
 * and the event ids a client resumes with ({@code <epoch as 16 hex digits>-<seq decimal>}). Stateless and
 * thread-safe.
 */
final class SseEvents {

    /** The comment line an idle stream carries, so that the client and any proxy between see it alive. */
    static final byte[] KEEP_ALIVE = ": keep-alive\n\n".getBytes(StandardCharsets.US_ASCII);

    private static final int EPOCH_DIGITS = 16;
    /** Longest sequence accepted: the decimal digits of 2^63 - 1. */
    private static final int SEQ_DIGITS_MAX = 19;

    private SseEvents() {
    }

    /** The event id of {@code epoch} and {@code seq}. */
    static String id(long epoch, long seq) {
        return String.format(Locale.ROOT, "%016x-%d", epoch, seq);
    }

    /**
     * Parses an event id into its epoch and sequence.
     *
     * @throws IllegalArgumentException with a message fit to show a user
     */
    static long[] parseId(String text) {
        int dash = text.indexOf('-');
        String epoch = dash < 0 ? text : text.substring(0, dash);
        String seq = dash < 0 ? "" : text.substring(dash + 1);
        boolean digits = !seq.isEmpty() && seq.length() <= SEQ_DIGITS_MAX && seq.chars().allMatch(Character::isDigit)
                && seq.chars().allMatch(c -> c < 0x80);
        if (epoch.length() != EPOCH_DIGITS || KeyParser.firstNonHex(epoch) >= 0 || !digits) {
            throw new IllegalArgumentException("an event id is <16 hex digits>-<decimal sequence>, as the stream's "
                    + "'id:' lines give it, got " + KeyParser.quote(text));
        }
        try {
            return new long[] {Long.parseUnsignedLong(epoch, 16), Long.parseLong(seq)};
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("the event id " + KeyParser.quote(text) + " has a sequence beyond "
                    + Long.MAX_VALUE);
        }
    }

    /**
     * One event as the stream carries it. ENDED has no id: it names no point to resume from, and a client keeps the
     * id of the last event before it.
     */
    static byte[] format(WatchEvent e) {
        StringBuilder out = new StringBuilder(128);
        if (e.kind() != WatchKind.ENDED) {
            out.append("id: ").append(id(e.epoch(), e.seq())).append('\n');
        }
        out.append("event: ").append(e.kind().name().toLowerCase(Locale.ROOT)).append('\n');
        // Jackson writes one line: string escapes carry any newline, and the bytes are base64.
        out.append("data: ").append(data(e)).append("\n\n");
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static String data(WatchEvent e) {
        switch (e.kind()) {
            case VALUE: {
                ObjectNode v = Json.object();
                KeysResource.describeValue(v, e.value(), e.valueHash());
                return Json.text(v);
            }
            case REMOVED:
            case EXPIRED: {
                ObjectNode v = Json.object();
                v.put("valueHash", e.valueHash().toHex());
                if (e.value().stamp() != null) {
                    OwnerHeaders.describe(v, e.value().stamp());
                }
                return Json.text(v);
            }
            case ENDED:
                // The problem the status would be as an HTTP answer: type, title, status and detail.
                return new String(Problems.forStatus(e.status(), e.detail()).body().toByteArray(),
                        StandardCharsets.UTF_8);
            case READY:
            default:
                return "{}";
        }
    }
}
