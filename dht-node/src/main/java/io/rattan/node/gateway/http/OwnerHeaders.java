package io.rattan.node.gateway.http;

import static io.rattan.node.gateway.http.Rejected.badRequest;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rattan.api.Bytes;
import io.rattan.api.OwnerStamp;
import io.rattan.core.msg.PutCondition;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
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
    static final String IF_MATCH = "If-Match";
    static final String IF_NONE_MATCH = "If-None-Match";
    /** Every header of an owner's stamp. */
    static final List<String> NAMES = List.of(OWNER, VALUE_ID, SEQ, EXPIRES, SIGNATURE);
    /** Every header an owned put may carry: the stamp's and the conditions. */
    static final List<String> ALL = List.of(OWNER, VALUE_ID, SEQ, EXPIRES, SIGNATURE, IF_MATCH, IF_NONE_MATCH);

    private OwnerHeaders() {
    }

    /**
     * The stamp {@code headers} carry, or null when none of its headers is there.
     *
     * @throws Rejected (400) when some are missing, repeated or malformed
     */
    static OwnerStamp stamp(Map<String, List<String>> headers) throws Rejected {
        if (NAMES.stream().noneMatch(headers::containsKey)) {
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

    /**
     * The stamp of an owner's remove: the owner key and the value id from the path, the sequence, the expiry and
     * the signature from {@code headers}.
     *
     * @throws Rejected (400) when the owner or the value id is also in a header, or any part is missing or malformed
     */
    static OwnerStamp removeStamp(String owner, String valueId, Map<String, List<String>> headers) throws Rejected {
        if (headers.containsKey(OWNER) || headers.containsKey(VALUE_ID)) {
            throw badRequest("an owner's remove names the owner and the value id in its path "
                    + "(/v1/keys/{key}/owned/{owner}/{valueId}), not in " + OWNER + " or " + VALUE_ID);
        }
        List<String> missing = new ArrayList<>();
        for (String name : List.of(SEQ, EXPIRES, SIGNATURE)) {
            if (!headers.containsKey(name)) {
                missing.add(name);
            }
        }
        if (!missing.isEmpty()) {
            throw badRequest("an owner's remove needs " + SEQ + ", " + EXPIRES + " and " + SIGNATURE + "; missing: "
                    + String.join(", ", missing));
        }
        Map<String, List<String>> all = new HashMap<>(headers);
        all.put(OWNER, List.of(owner));
        all.put(VALUE_ID, List.of(valueId));
        return stamp(all);
    }

    /**
     * The condition of a put: {@code If-None-Match: *} (none held), {@code If-Match: "N"} (sequence N held), or none.
     *
     * @throws Rejected (400) for both, a repeated one, or another form
     */
    static PutCondition condition(Map<String, List<String>> headers) throws Rejected {
        boolean ifMatch = headers.containsKey(IF_MATCH);
        boolean ifNoneMatch = headers.containsKey(IF_NONE_MATCH);
        if (ifMatch && ifNoneMatch) {
            throw badRequest("give " + IF_MATCH + " or " + IF_NONE_MATCH + ", not both");
        }
        if (ifNoneMatch) {
            if (!single(headers, IF_NONE_MATCH).equals("*")) {
                throw badRequest(IF_NONE_MATCH + " must be *: the put succeeds only if no value is held");
            }
            return PutCondition.ABSENT;
        }
        if (!ifMatch) {
            return PutCondition.NONE;
        }
        String tag = single(headers, IF_MATCH);
        if (tag.length() < 3 || tag.charAt(0) != '"' || tag.charAt(tag.length() - 1) != '"') {
            throw badRequest(IF_MATCH + " must be one sequence in quotes, as an ETag: \"N\", got "
                    + KeyParser.quote(tag));
        }
        try {
            return PutCondition.ifSeq(OwnerStamp.parseUnsigned(tag.substring(1, tag.length() - 1)));
        } catch (NumberFormatException e) {
            throw badRequest(IF_MATCH + " must name an unsigned decimal sequence, got " + KeyParser.quote(tag));
        }
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

    /** The one value of {@code name} (headers, or a query's parameters) as an unsigned decimal number. */
    static long unsigned(Map<String, List<String>> headers, String name) throws Rejected {
        String text = single(headers, name);
        try {
            return OwnerStamp.parseUnsigned(text);
        } catch (NumberFormatException e) {
            throw badRequest(name + " must be an unsigned decimal number below 2^64, got " + KeyParser.quote(text));
        }
    }

    /** The one value of {@code name} (headers, or a query's parameters) as {@code length} bytes of base64url. */
    static Bytes base64Url(Map<String, List<String>> headers, String name, int length) throws Rejected {
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
