package io.rattan.bench.cli;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * A duration as people write it on a command line: a number and a unit, {@code ms}, {@code s}, {@code m}, {@code h}
 * or {@code d} ({@code 500ms}, {@code 90s}, {@code 10m}, {@code 2h}, {@code 3d}); a bare number is seconds.
 */
public final class DurationConverter implements ITypeConverter<Duration> {

    private static final Pattern FORM = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h|d)?");

    @Override
    public Duration convert(String value) {
        return parse(value);
    }

    /** Parses {@code text}; a {@link TypeConversionException} says what was expected. */
    public static Duration parse(String text) {
        Matcher m = FORM.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new TypeConversionException("'" + text + "' is not a duration such as 500ms, 30s, 10m, 2h or 1d");
        }
        double n = Double.parseDouble(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2);
        double millis;
        switch (unit) {
            case "ms":
                millis = n;
                break;
            case "m":
                millis = n * 60_000;
                break;
            case "h":
                millis = n * 3_600_000;
                break;
            case "d":
                millis = n * 86_400_000;
                break;
            default:
                millis = n * 1000;
                break;
        }
        return Duration.ofNanos(Math.round(millis * 1_000_000));
    }

    /** {@code d} the way {@link #parse} reads it back, in the largest unit that keeps it whole. */
    public static String format(Duration d) {
        long ms = d.toMillis();
        if (ms % 86_400_000 == 0 && ms > 0) {
            return ms / 86_400_000 + "d";
        }
        if (ms % 3_600_000 == 0 && ms > 0) {
            return ms / 3_600_000 + "h";
        }
        if (ms % 60_000 == 0 && ms > 0) {
            return ms / 60_000 + "m";
        }
        if (ms % 1000 == 0) {
            return ms / 1000 + "s";
        }
        return ms + "ms";
    }
}
