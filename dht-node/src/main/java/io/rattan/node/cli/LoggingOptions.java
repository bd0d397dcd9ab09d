package io.rattan.node.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import org.slf4j.ILoggerFactory;
import org.slf4j.LoggerFactory;
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

    /** Sets the level of Rattan's loggers: {@code quiet} without {@code -v}, INFO with one, DEBUG with two. */
    void apply(Level quiet) {
        if (System.getProperty("logback.configurationFile") != null) {
            return;
        }
        ILoggerFactory factory = LoggerFactory.getILoggerFactory();
        if (!(factory instanceof LoggerContext)) {
            return;
        }
        Level level = verbose.length >= 2 ? Level.DEBUG : verbose.length == 1 ? Level.INFO : quiet;
        ((LoggerContext) factory).getLogger("io.rattan").setLevel(level);
    }
}
