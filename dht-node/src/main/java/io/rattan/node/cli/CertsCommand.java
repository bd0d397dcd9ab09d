package io.rattan.node.cli;

import io.rattan.core.id.NodeKey;
import io.rattan.node.tls.BearerTokens;
import io.rattan.node.tls.ClusterCa;
import io.rattan.node.tls.TlsFiles;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code rattan certs}: a private cluster's CA, and the certificates it gives its nodes. */
@Command(name = "certs",
        mixinStandardHelpOptions = true,
        versionProvider = RattanCli.Version.class,
        description = {"Makes the certificates of mutual TLS between nodes (rattan node --tls-ca): a cluster CA, and "
                + "for each node a certificate of its own key, which names its id; and bearer tokens for the HTTP "
                + "gateway (--http-tokens). Keys are Ed25519; the CA's key "
                + "stays where you made it, owner-only, off the nodes.",
            "Revoke a node by adding its id (printed by `certs node`) to the file every node's --tls-revoked names."},
        subcommands = {CertsCommand.Ca.class, CertsCommand.Node.class, CertsCommand.Client.class,
            CertsCommand.Token.class},
        footer = {"", "A trial of three nodes:",
            "  rattan certs ca --dir ca",
            "  rattan certs node --ca ca --data-dir n1     (and n2, n3)",
            "  rattan node --data-dir n1 --tls-ca ca/ca.crt --port 4000 ...",
            "HTTPS with tokens: certs node ... --san 10.0.0.5; certs token --name app --tokens tokens.txt;",
            "  rattan node ... --client-tls-cert n1/node.crt --client-tls-key n1/node.key --http-tokens tokens.txt",
            "docs/operations.md, 'Mutual TLS between nodes'."})
final class CertsCommand implements Runnable {

    @Spec
    private CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** {@code rattan certs ca}: a new CA. */
    @Command(name = "ca", mixinStandardHelpOptions = true, versionProvider = RattanCli.Version.class,
            description = "Makes a new cluster CA in --dir: ca.crt, which every node is given, and ca.key "
                    + "(owner-only). Exits 1 if the directory already holds a CA: one is never replaced.")
    static final class Ca implements Callable<Integer> {
        @Spec
        private CommandSpec spec;

        @Option(names = "--dir", paramLabel = "DIR", required = true, description = "Where to write the CA.")
        Path dir;

        @Option(names = "--name", paramLabel = "NAME", description = "The CA certificate's common name.")
        String name = "rattan cluster CA";

        @Option(names = "--days", paramLabel = "N", description = "How long the CA certificate lasts.")
        int days = 3650;

        @Override
        public Integer call() {
            try {
                ClusterCa.create(name, validity(days), new SecureRandom()).write(dir);
                spec.commandLine().getOut().println("wrote " + dir.resolve(ClusterCa.CERT_FILE) + " (give it to "
                        + "every node: --tls-ca) and " + dir.resolve(ClusterCa.KEY_FILE) + " (keep it off the nodes)");
                return 0;
            } catch (IOException | IllegalArgumentException e) {
                return failed(spec, e);
            }
        }
    }

    /** {@code rattan certs node}: a node's certificate. */
    @Command(name = "node", mixinStandardHelpOptions = true, versionProvider = RattanCli.Version.class,
            description = {"Certifies a node: takes the key in its --data-dir (or makes it, as the node's first start "
                    + "would) and writes " + TlsFiles.NODE_CERT + " there, signed by the CA in --ca. Run again to "
                    + "renew: a running node takes the new certificate within seconds.",
                "Prints the node's id, the name to revoke it by."})
    static final class Node implements Callable<Integer> {
        @Spec
        private CommandSpec spec;

        @Option(names = "--ca", paramLabel = "DIR", required = true,
                description = "The CA's directory (`rattan certs ca`).")
        Path ca;

        @Option(names = "--data-dir", paramLabel = "DIR", required = true, description = "The node's data directory.")
        Path dataDir;

        @Option(names = "--days", paramLabel = "N", description = "How long the certificate lasts.")
        int days = (int) ClusterCa.VALIDITY_DEFAULT.toDays();

        @Option(names = "--san", paramLabel = "NAME", split = ",",
                description = "IP addresses and DNS names the certificate also names, so that it can serve the node's "
                        + "HTTPS port (--client-tls-cert) to clients that check the host name. Default: none.")
        List<String> names = new ArrayList<>();

        @Override
        public Integer call() {
            try {
                SecureRandom random = new SecureRandom();
                NodeKey key = ClusterCa.read(ca, random).certifyNode(dataDir, validity(days), names, random);
                spec.commandLine().getOut().println(key.id().toHex());
                spec.commandLine().getErr().println("wrote " + dataDir.resolve(TlsFiles.NODE_CERT) + " for node "
                        + key.id().toHex());
                return 0;
            } catch (IOException | IllegalArgumentException e) {
                return failed(spec, e);
            }
        }
    }

    /** {@code rattan certs client}: a client's key and certificate. */
    @Command(name = "client", mixinStandardHelpOptions = true, versionProvider = RattanCli.Version.class,
            description = {"Makes a client's key and certificate, signed by the CA in --ca, for nodes run with "
                    + "--client-ca: writes NAME.key (owner-only) and NAME.crt to --out.",
                "Its rate and storage share at the client ports are counted by NAME."})
    static final class Client implements Callable<Integer> {
        @Spec
        private CommandSpec spec;

        @Option(names = "--ca", paramLabel = "DIR", required = true,
                description = "The CA's directory (`rattan certs ca`; a CA of its own for clients, or the cluster's).")
        Path ca;

        @Option(names = "--name", paramLabel = "NAME", required = true,
                description = "The client's name (1..64 of A-Z a-z 0-9 . _ -): the certificate's CN.")
        String name;

        @Option(names = "--out", paramLabel = "DIR", required = true, description = "Where to write the two files.")
        Path out;

        @Option(names = "--days", paramLabel = "N", description = "How long the certificate lasts.")
        int days = (int) ClusterCa.VALIDITY_DEFAULT.toDays();

        @Override
        public Integer call() {
            try {
                SecureRandom random = new SecureRandom();
                ClusterCa.read(ca, random).certifyClient(out, name, validity(days), random);
                spec.commandLine().getOut().println("wrote " + out.resolve(name + ".key") + " and "
                        + out.resolve(name + ".crt"));
                return 0;
            } catch (FileAlreadyExistsException e) {
                spec.commandLine().getErr().println("error: " + e.getFile() + " exists; a key is never overwritten");
            } catch (IOException | IllegalArgumentException e) {
                return failed(spec, e);
            }
            return RattanCli.EXIT_FAILED;
        }
    }

    /** {@code rattan certs token}: a bearer token for the HTTP gateway. */
    @Command(name = "token", mixinStandardHelpOptions = true, versionProvider = RattanCli.Version.class,
            description = {"Makes a bearer token for the HTTP gateway (--http-tokens): prints the token, and adds its "
                    + "name and its SHA-256 (never the token) to --tokens, which is created owner-only if missing. "
                    + "Nodes re-read the file within seconds.",
                "A client sends it as 'Authorization: Bearer TOKEN'; its rate and storage share are the token's. "
                    + "To revoke it, delete its line."})
    static final class Token implements Callable<Integer> {
        @Spec
        private CommandSpec spec;

        @Option(names = "--name", paramLabel = "NAME", required = true,
                description = "The client's name: how refusals and logs name it (1..64 of A-Z a-z 0-9 . _ -).")
        String name;

        @Option(names = "--tokens", paramLabel = "FILE", required = true,
                description = "The token file to add the token's line to.")
        Path tokens;

        @Override
        public Integer call() {
            try {
                String token = BearerTokens.newToken(new SecureRandom());
                String line = BearerTokens.line(name, token) + System.lineSeparator();
                if (!Files.exists(tokens)) {
                    Files.createFile(tokens, PosixFilePermissions.asFileAttribute(
                            PosixFilePermissions.fromString("rw-------")));
                }
                Files.writeString(tokens, line, StandardOpenOption.APPEND);
                spec.commandLine().getOut().println(token);
                spec.commandLine().getErr().println("added the token '" + name + "' to " + tokens);
                return 0;
            } catch (IOException | IllegalArgumentException e) {
                return failed(spec, e);
            }
        }
    }

    /** Says why a subcommand failed, on standard error, and gives its exit code. */
    private static int failed(CommandSpec spec, Exception e) {
        spec.commandLine().getErr().println("error: " + e.getMessage());
        return RattanCli.EXIT_FAILED;
    }

    private static Duration validity(int days) {
        if (days < 1) {
            throw new IllegalArgumentException("--days must be at least 1, got " + days);
        }
        return Duration.ofDays(days);
    }
}
