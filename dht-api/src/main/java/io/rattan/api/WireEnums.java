package io.rattan.api;

import java.util.Locale;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/** Lookups shared by the enums that travel as a wire code and are named by a label on the HTTP API and CLI. */
final class WireEnums {

    private WireEnums() {
    }

    /** The constant whose {@code code} is {@code code}, or null when none is. */
    static <E> E byCode(E[] values, ToIntFunction<E> codeOf, int code) {
        for (E e : values) {
            if (codeOf.applyAsInt(e) == code) {
                return e;
            }
        }
        return null;
    }

    /** The constant whose label is {@code s}, case-insensitively; else {@code IllegalArgumentException(error)}. */
    static <E> E byLabel(E[] values, Function<E, String> labelOf, String s, String error) {
        String wanted = s.toLowerCase(Locale.ROOT);
        for (E e : values) {
            if (labelOf.apply(e).equals(wanted)) {
                return e;
            }
        }
        throw new IllegalArgumentException(error);
    }
}
