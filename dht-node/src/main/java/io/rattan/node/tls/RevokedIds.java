package io.rattan.node.tls;

import io.rattan.api.Id;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** A revocation list as operators keep it: one node id (40 hex digits) per line; blank lines and {@code #} comments. */
final class RevokedIds {

    private RevokedIds() {
    }

    /**
     * The ids in {@code file}; none when {@code file} is null.
     *
     * @throws IOException when it cannot be read, or a line is not an id (the message names the line)
     */
    static Set<Id> read(Path file) throws IOException {
        return read(file, why -> {
            throw new IOException(why);
        });
    }

    /** What to do with a line that is not an id: throw (at start), or warn and skip it (at a reload). */
    interface BadLines {
        void found(String why) throws IOException;
    }

    /** The ids in {@code file}, each line that is not an id reported to {@code bad}. */
    static Set<Id> read(Path file, BadLines bad) throws IOException {
        if (file == null) {
            return Set.of();
        }
        List<String> lines = Files.readAllLines(file);
        Set<Id> ids = new HashSet<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            int hash = line.indexOf('#');
            String id = (hash >= 0 ? line.substring(0, hash) : line).strip();
            if (id.isEmpty()) {
                continue;
            }
            try {
                ids.add(Id.fromHex(id));
            } catch (IllegalArgumentException e) {
                bad.found(file + " line " + (i + 1) + ": '" + id + "' is not a node id (40 hex digits)");
            }
        }
        return Set.copyOf(ids);
    }
}
