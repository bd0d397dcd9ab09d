package io.rattan.node.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rattan.core.id.NodeKey;
import io.rattan.node.identity.NodeKeyFile;
import io.rattan.node.limits.ClientId;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The token file and the client ports' certificate as a node reads them, at start and at a reload. */
class AccessFilesTest {

    @TempDir
    Path dir;

    @Test
    void aTokenFileIsStrictAtStartAndErrsTowardsRefusingAtAReload() throws IOException {
        String a = BearerTokens.newToken(new SecureRandom());
        String b = BearerTokens.newToken(new SecureRandom());
        Path file = dir.resolve("tokens.txt");
        Files.writeString(file, BearerTokens.line("a", a) + "\nnot a line\n");
        assertThatThrownBy(() -> BearerTokens.open(file, "n")).hasMessageContaining("line 2");

        Files.writeString(file, BearerTokens.line("a", a) + "\n" + BearerTokens.line("b", b) + "\n");
        BearerTokens tokens = BearerTokens.open(file, "n");
        assertThat(tokens.clientOf("Bearer " + a)).contains(ClientId.token("a"));
        assertThat(tokens.clientOf("bearer " + b)).contains(ClientId.token("b"));
        assertThat(tokens.clientOf(a)).isEmpty();
        assertThat(tokens.clientOf(null)).isEmpty();

        // b's line removed beside a malformed one: b is refused, a still taken.
        Files.writeString(file, BearerTokens.line("a", a) + "\nb oops\n");
        tokens.reloadIfChanged();
        assertThat(tokens.clientOf("Bearer " + b)).isEmpty();
        assertThat(tokens.clientOf("Bearer " + a)).contains(ClientId.token("a"));
        // The file gone: no token is taken.
        Files.delete(file);
        tokens.reloadIfChanged();
        assertThat(tokens.clientOf("Bearer " + a)).isEmpty();
    }

    @Test
    void theClientPortsRefuseAKeyThatIsNotTheCertificatesOrIsOpenToOthers() throws IOException {
        ClusterCa ca = ClusterCa.create("ca", Duration.ofDays(1), new SplittableRandom(41));
        Path node = dir.resolve("n");
        ca.certifyNode(node, Duration.ofDays(1), List.of("127.0.0.1"), new SecureRandom());
        Path cert = node.resolve(TlsFiles.NODE_CERT);
        Path key = node.resolve(NodeKeyFile.FILE_NAME);
        ServerTls.open(cert, key, "n");

        Path other = dir.resolve("other.key");
        NodeKeyFile.write(other, NodeKey.draw(new SecureRandom()));
        assertThatThrownBy(() -> ServerTls.open(cert, other, "n")).hasMessageContaining("is not the key of");
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-r--r--"));
        assertThatThrownBy(() -> ServerTls.open(cert, key, "n")).hasMessageContaining("chmod 600");
        // A mode is part of what says a file changed, so a key made owner-only is read again.
        List<String> open = FileStamps.of(key);
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
        assertThat(FileStamps.of(key)).isNotEqualTo(open);
    }
}
