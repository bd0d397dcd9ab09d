package io.rattan.node.tls;

import com.google.common.hash.Hashing;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;

/**
 * What says that files a node re-reads (certificates, keys, lists) changed: each one's time, inode, mode and content
 * hash.
 * They are small; reading them every few seconds, on a thread of their own, costs nothing.
 */
final class FileStamps {

    private FileStamps() {
    }

    /** One stamp per file given (null ones are skipped), equal again only when none changed. */
    static List<String> of(Path... files) {
        List<String> out = new ArrayList<>();
        for (Path file : files) {
            if (file == null) {
                continue;
            }
            try {
                // The content's hash too: an edit of the same size within the clock's tick changes no time.
                BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
                // The mode too: a key made owner-only after it was refused must be read again.
                String mode = Files.getFileAttributeView(file, PosixFileAttributeView.class) == null ? ""
                        : PosixFilePermissions.toString(Files.getPosixFilePermissions(file));
                out.add(a.lastModifiedTime() + "/" + a.fileKey() + "/" + mode + "/"
                        + Hashing.sha256().hashBytes(Files.readAllBytes(file)));
            } catch (NoSuchFileException e) {
                out.add("missing");
            } catch (IOException e) {
                out.add("unreadable: " + e.getMessage());
            }
        }
        return out;
    }
}
