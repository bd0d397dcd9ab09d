package io.rattan.node.cli;

import io.rattan.core.id.NodeKey;
import io.rattan.node.tls.ClusterCa;
import io.rattan.node.tls.TlsFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
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
                + "for each node a certificate of its own key, which names its id. Keys are Ed25519; the CA's key "
                + "stays where you made it, owner-only, off the nodes.",
            "Revoke a node by adding its id (printed by `certs node`) to the file every node's --tls-revoked names."},
        subcommands = {CertsCommand.Ca.class, CertsCommand.Node.class},
        footer = {"", "A trial of three nodes:",
            "  rattan certs ca --dir ca",
            "  rattan certs node --ca ca --data-dir n1     (and n2, n3)",
            "  rattan node --data-dir n1 --tls-ca ca/ca.crt --port 4000 ...",
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
                spec.commandLine().getErr().println("error: " + e.getMessage());
                return RattanCli.EXIT_FAILED;
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

        @Override
        public Integer call() {
            try {
                SecureRandom random = new SecureRandom();
                NodeKey key = ClusterCa.read(ca, random).certifyNode(dataDir, validity(days), random);
                spec.commandLine().getOut().println(key.id().toHex());
                spec.commandLine().getErr().println("wrote " + dataDir.resolve(TlsFiles.NODE_CERT) + " for node "
                        + key.id().toHex());
                return 0;
            } catch (IOException | IllegalArgumentException e) {
                spec.commandLine().getErr().println("error: " + e.getMessage());
                return RattanCli.EXIT_FAILED;
            }
        }
    }

    private static Duration validity(int days) {
        if (days < 1) {
            throw new IllegalArgumentException("--days must be at least 1, got " + days);
        }
        return Duration.ofDays(days);
    }
}
