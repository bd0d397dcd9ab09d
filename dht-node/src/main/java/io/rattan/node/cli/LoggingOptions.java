package io.rattan.node.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.ConsoleAppender;
import org.slf4j.ILoggerFactory;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Help;
import picocli.CommandLine.Option;

/**
 * {@code -v/--verbose}, shared by the subcommands. A command that prints its own results keeps Rattan's log quiet
 * unless asked, so that its output stays readable; a {@code -Dlogback.configurationFile} given by the user wins.
 */
final class LoggingOptions {

    @Option(names = {"-v", "--verbose"}, showDefaultValue = Help.Visibility.NEVER,
            description = "Log what the nodes and clients do (INFO; twice: DEBUG).")
    boolean[] verbose = new boolean[0];

    /** How log lines are written to standard output. */
    enum Format { TEXT, JSON }

    @Option(names = "--log-format", paramLabel = "FORMAT", defaultValue = "text", converter = FormatConverter.class,
            description = "text: one line per event, ISO-8601 time first; json: one JSON object per line "
                    + "(logback's JsonEncoder), for a log collector.")
    Format format = Format.TEXT;

    /**
     * Sets the level of Rattan's loggers, {@code quiet} without {@code -v}, INFO with one, DEBUG with two, and the
     * format of the console's lines.
     */
    void apply(Level quiet) {
        if (System.getProperty("logback.configurationFile") != null) {
            return;
        }
        ILoggerFactory factory = LoggerFactory.getILoggerFactory();
        if (!(factory instanceof LoggerContext)) {
            return;
        }
        LoggerContext context = (LoggerContext) factory;
        Level level = verbose.length >= 2 ? Level.DEBUG : verbose.length == 1 ? Level.INFO : quiet;
        context.getLogger("io.rattan").setLevel(level);
        if (format == Format.JSON) {
            toJson(context);
        }
    }

    /** Replaces the console appender's encoder with logback's JSON one: the same events, one object a line. */
    private static void toJson(LoggerContext context) {
        ch.qos.logback.classic.Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        Appender<ILoggingEvent> old = root.getAppender(CONSOLE);
        if (!(old instanceof ConsoleAppender<ILoggingEvent> console)) {
            return;
        }
        JsonEncoder json = new JsonEncoder();
        json.setContext(context);
        // The message as the text format shows it; the pattern and its arguments apart, and the context, are noise.
        json.setWithFormattedMessage(true);
        json.setWithMessage(false);
        json.setWithArguments(false);
        json.setWithContext(false);
        json.setWithSequenceNumber(false);
        json.start();
        ConsoleAppender<ILoggingEvent> replacement = new ConsoleAppender<>();
        replacement.setContext(context);
        replacement.setName(CONSOLE);
        replacement.setTarget(console.getTarget());
        replacement.setEncoder(json);
        replacement.start();
        root.detachAppender(old);
        old.stop();
        root.addAppender(replacement);
    }

    /** The console appender's name in logback.xml. */
    static final String CONSOLE = "CONSOLE";

    /** {@code text} or {@code json}, in any case. */
    static final class FormatConverter implements CommandLine.ITypeConverter<Format> {
        @Override
        public Format convert(String value) {
            try {
                return Format.valueOf(value.toUpperCase(java.util.Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException("expected text or json, got '" + value + "'");
            }
        }
    }
}
