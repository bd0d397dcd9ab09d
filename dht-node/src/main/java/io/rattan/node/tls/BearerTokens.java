package io.rattan.node.tls;

import com.google.common.hash.Hashing;
import io.rattan.node.limits.ClientId;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bearer tokens a gateway takes ({@code Authorization: Bearer TOKEN}), from a file that names each client and
 * holds only the SHA-256 of its token: {@code NAME SHA256HEX} a line, {@code #} comments ({@code rattan certs token}
 * makes a token and its line). A client's rate and storage share are its token's ({@link ClientId#token}); a token is
 * never logged. The file is re-read when it changes ({@link #reloadIfChanged}). Thread-safe.
 */
public final class BearerTokens {

    private static final Logger log = LoggerFactory.getLogger(BearerTokens.class);
    private static final String SCHEME = "Bearer ";
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");
    private static final Pattern HASH = Pattern.compile("[0-9a-f]{64}");
    private static final int TOKEN_BYTES = 32;

    private final Path file;
    private final String localName;
    private final LongAdder refused = new LongAdder();
    private volatile Map<String, ClientId> byHash;
    private volatile List<String> stamps;

    private BearerTokens(Path file, String localName) {
        this.file = file;
        this.localName = localName;
    }

    /**
     * The tokens in {@code file}.
     *
     * @throws IOException when it cannot be read or a line is malformed (the message names the line, not its hash)
     */
    public static BearerTokens open(Path file, String localName) throws IOException {
        BearerTokens tokens = new BearerTokens(file, localName);
        tokens.stamps = FileStamps.of(file);
        tokens.byHash = read(file, why -> {
            throw new IOException(why);
        });
        return tokens;
    }

    /** A new token: 32 bytes of {@code random}, base64url. */
    public static String newToken(SecureRandom random) {
        byte[] bytes = new byte[TOKEN_BYTES];
        random.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** The token file's line for {@code token}, named {@code name}. */
    public static String line(String name, String token) {
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("a token's name is 1..64 of A-Z a-z 0-9 . _ -, got '" + name + "'");
        }
        return name + " " + hash(token);
    }

    /**
     * The client whose token an {@code Authorization} header value carries, or empty when it carries none the file
     * holds.
     */
    public Optional<ClientId> clientOf(String authorization) {
        return Optional.ofNullable(authorization != null
                && authorization.regionMatches(true, 0, SCHEME, 0, SCHEME.length())
                ? byHash.get(hash(authorization.substring(SCHEME.length()).strip())) : null);
    }

    /** Counts one request answered 401. */
    public void refusedOne() {
        refused.increment();
    }

    /** Requests answered 401 for a missing or unknown token so far. */
    public long refused() {
        return refused.sum();
    }

    /**
     * Re-reads the file if it changed. It errs towards refusing: a malformed line is skipped (logged), and a file
     * that is gone or unreadable takes every token away, so that a token removed is never kept by a mistake nearby.
     */
    public void reloadIfChanged() {
        List<String> now = FileStamps.of(file);
        if (now.equals(stamps)) {
            return;
        }
        stamps = now;
        try {
            byHash = read(file, why -> log.warn("{}: skipping {}", localName, why));
            log.info("{}: reloaded {} gateway token(s) from {}", localName, byHash.size(), file);
        } catch (IOException e) {
            byHash = Map.of();
            log.error("{}: cannot read the token file {}, so no token is taken until it can be: {}", localName, file,
                    e.toString());
        }
    }

    private static String hash(String token) {
        return Hashing.sha256().hashString(token, StandardCharsets.UTF_8).toString();
    }

    /** What to do with a line that is not a token's: throw (at start), or warn and skip it (at a reload). */
    private interface BadLines {
        void found(String why) throws IOException;
    }

    private static Map<String, ClientId> read(Path file, BadLines bad) throws IOException {
        List<String> lines = Files.readAllLines(file);
        Map<String, ClientId> out = new HashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            int comment = line.indexOf('#');
            String[] parts = (comment >= 0 ? line.substring(0, comment) : line).strip().split("\\s+");
            if (parts.length == 1 && parts[0].isEmpty()) {
                continue;
            }
            if (parts.length != 2 || !NAME.matcher(parts[0]).matches() || !HASH.matcher(parts[1]).matches()) {
                bad.found(file + " line " + (i + 1) + " is not 'NAME SHA256HEX' (rattan certs token writes such "
                        + "lines)");
            } else {
                out.put(parts[1], ClientId.token(parts[0]));
            }
        }
        return Map.copyOf(out);
    }
}
