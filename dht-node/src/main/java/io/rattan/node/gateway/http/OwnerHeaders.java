package io.rattan.node.gateway.http;

import static io.rattan.node.gateway.http.Rejected.badRequest;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rattan.core.owned.OwnerStamp;
import io.rattan.core.util.Bytes;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * An owner's stamp as HTTP carries it (docs/http-api.md, "Owned values"): the owner key and the signature in
 * base64url without padding, the value id, the sequence and the expiry (Unix seconds) as unsigned decimal strings.
 * The same encodings name them in a get's JSON.
 */
final class OwnerHeaders {

    static final String OWNER = "Rattan-Owner";
    static final String VALUE_ID = "Rattan-Value-Id";
    static final String SEQ = "Rattan-Seq";
    static final String EXPIRES = "Rattan-Expires";
    static final String SIGNATURE = "Rattan-Signature";
    /** Every header of an owned put. */
    static final List<String> NAMES = List.of(OWNER, VALUE_ID, SEQ, EXPIRES, SIGNATURE);

    private OwnerHeaders() {
    }

    /**
     * The stamp {@code headers} carry, or null when none of its headers is there.
     *
     * @throws Rejected (400) when some are missing, repeated or malformed
     */
    static OwnerStamp stamp(Map<String, List<String>> headers) throws Rejected {
        if (headers.isEmpty()) {
            return null;
        }
        List<String> missing = new ArrayList<>();
        for (String name : NAMES) {
            if (!headers.containsKey(name)) {
                missing.add(name);
            }
        }
        if (!missing.isEmpty()) {
            throw badRequest("an owned put needs all of " + String.join(", ", NAMES) + "; missing: "
                    + String.join(", ", missing));
        }
        long expires = unsigned(headers, EXPIRES);
        if (Long.compareUnsigned(expires, OwnerStamp.EXPIRES_AT_SECONDS_MAX) > 0) {
            throw badRequest(EXPIRES + " is too far in the future: " + Long.toUnsignedString(expires));
        }
        return new OwnerStamp(base64Url(headers, OWNER, OwnerStamp.OWNER_BYTES), unsigned(headers, VALUE_ID),
                unsigned(headers, SEQ), expires, base64Url(headers, SIGNATURE, OwnerStamp.SIGNATURE_BYTES));
    }

    /** The stamp's fields in a get's or a put's JSON. */
    static void describe(ObjectNode json, OwnerStamp s) {
        json.put("owner", encode(s.owner()));
        json.put("valueId", Long.toUnsignedString(s.valueId()));
        json.put("seq", Long.toUnsignedString(s.seq()));
        json.put("expiresAt", Long.toString(s.expiresAtSeconds()));
        json.put("signature", encode(s.signature()));
    }

    static String encode(Bytes b) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b.toByteArray());
    }

    private static String single(Map<String, List<String>> headers, String name) throws Rejected {
        List<String> values = headers.get(name);
        if (values.size() != 1) {
            throw badRequest(name + " is given " + values.size() + " times; give it once");
        }
        return values.get(0).strip();
    }

    private static long unsigned(Map<String, List<String>> headers, String name) throws Rejected {
        String text = single(headers, name);
        try {
            if (text.isEmpty() || text.charAt(0) == '+') {
                throw new NumberFormatException();
            }
            return Long.parseUnsignedLong(text);
        } catch (NumberFormatException e) {
            throw badRequest(name + " must be an unsigned decimal number below 2^64, got " + KeyParser.quote(text));
        }
    }

    private static Bytes base64Url(Map<String, List<String>> headers, String name, int length) throws Rejected {
        String text = single(headers, name);
        byte[] bytes;
        try {
            bytes = Base64.getUrlDecoder().decode(text);
        } catch (IllegalArgumentException e) {
            throw badRequest(name + " must be base64url without padding: " + e.getMessage());
        }
        if (bytes.length != length || text.endsWith("=")) {
            throw badRequest(name + " must be " + length + " bytes in base64url without padding, got "
                    + bytes.length + " bytes");
        }
        return Bytes.wrap(bytes);
    }
}
