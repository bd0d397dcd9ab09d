package io.rattan.node.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.node.identity.NodeKeyFile;
import io.rattan.node.tls.CertificatePem;
import io.rattan.node.tls.ClusterCa;
import io.rattan.node.tls.PeerCertificates;
import io.rattan.node.tls.TlsFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code rattan certs}: a CA, a node's certificate of its own key, tokens; and what each refuses. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CertsCommandTest {

    @TempDir
    Path dir;

    @Test
    void makesACaThenANodesCertificateOfItsOwnKey() throws Exception {
        Path ca = dir.resolve("ca");
        CliRun made = CliRun.of("certs", "ca", "--dir", ca.toString());
        assertThat(made.exit()).as(made.err()).isZero();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(ca.resolve(ClusterCa.KEY_FILE))))
                .isEqualTo("rw-------");
        CliRun again = CliRun.of("certs", "ca", "--dir", ca.toString());
        assertThat(again.exit()).isEqualTo(1);
        assertThat(again.err()).contains("a CA is never replaced");

        Path node = dir.resolve("n1");
        CliRun certified = CliRun.of("certs", "node", "--ca", ca.toString(), "--data-dir", node.toString(),
                "--san", "127.0.0.1,node1.example");
        assertThat(certified.exit()).as(certified.err()).isZero();
        String id = certified.out().strip();
        assertThat(NodeKeyFile.read(node.resolve(NodeKeyFile.FILE_NAME)).orElseThrow().id().toHex()).isEqualTo(id);
        X509Certificate cert = CertificatePem.read(node.resolve(TlsFiles.NODE_CERT)).get(0);
        assertThat(PeerCertificates.idOf(cert).toHex()).isEqualTo(id);
        assertThat(cert.getSubjectAlternativeNames().stream().map(n -> String.valueOf(n.get(1))))
                .containsExactlyInAnyOrder("127.0.0.1", "node1.example");
        cert.verify(CertificatePem.read(ca.resolve(ClusterCa.CERT_FILE)).get(0).getPublicKey());

        // Renewal keeps the key, and so the id.
        CliRun renewed = CliRun.of("certs", "node", "--ca", ca.toString(), "--data-dir", node.toString());
        assertThat(renewed.out().strip()).isEqualTo(id);
        CliRun noCa = CliRun.of("certs", "node", "--ca", dir.resolve("none").toString(), "--data-dir",
                node.toString());
        assertThat(noCa.exit()).isEqualTo(1);
        assertThat(noCa.err()).contains("no CA key");
    }

    @Test
    void aTokenIsPrintedOnceAndOnlyItsHashIsKept() throws Exception {
        Path tokens = dir.resolve("tokens.txt");
        CliRun made = CliRun.of("certs", "token", "--name", "app", "--tokens", tokens.toString());
        assertThat(made.exit()).as(made.err()).isZero();
        String token = made.out().strip();
        assertThat(token).hasSize(43);
        List<String> lines = Files.readAllLines(tokens);
        assertThat(lines).hasSize(1);
        assertThat(lines.get(0)).startsWith("app ").doesNotContain(token);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(tokens))).isEqualTo("rw-------");
        CliRun bad = CliRun.of("certs", "token", "--name", "no spaces", "--tokens", tokens.toString());
        assertThat(bad.exit()).isEqualTo(1);
        assertThat(Files.readAllLines(tokens)).hasSize(1);
    }
}
