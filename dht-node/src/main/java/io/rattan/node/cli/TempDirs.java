package io.rattan.node.cli;

import com.google.common.io.MoreFiles;
import com.google.common.io.RecursiveDeleteOption;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Scratch directories for local clusters, deleted with everything in them. */
final class TempDirs {

    private TempDirs() {
    }

    static Path create(String prefix) {
        try {
            return Files.createTempDirectory(prefix);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary directory", e);
        }
    }

    /** Deletes {@code dir} and its contents; a failure is reported, not thrown, as this runs while cleaning up. */
    static void deleteQuietly(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try {
            MoreFiles.deleteRecursively(dir, RecursiveDeleteOption.ALLOW_INSECURE);
        } catch (IOException e) {
            System.err.println("warning: could not delete " + dir + ": " + e);
        }
    }
}
