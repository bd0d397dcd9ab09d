package io.rattan.node.cli;

import io.rattan.client.OwnerKey;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code rattan keygen}: makes an owner key, or shows the public key of one. */
@Command(name = "keygen",
        mixinStandardHelpOptions = true,
        versionProvider = RattanCli.Version.class,
        description = {"Makes a new owner key: an Ed25519 key pair that signs owned values. The private key is "
                + "written as PKCS#8 PEM (as `openssl genpkey -algorithm ed25519` writes it), readable by you only; "
                + "it never leaves your machine. The public key, printed in base64url, is the owner every replica "
                + "checks your values against.",
            "Exits 1 when the file exists (a key is never overwritten) or holds no Ed25519 private key."},
        footer = {"", "Examples: rattan keygen --out owner.pem", "          rattan keygen --show owner.pem"})
final class KeygenCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @ArgGroup(multiplicity = "1")
    Target target;

    /** What to do: write a new key, or read one. */
    static final class Target {
        @Option(names = "--out", paramLabel = "FILE", required = true,
                description = "Write a new key to FILE, which must not exist.")
        Path out;

        @Option(names = "--show", paramLabel = "FILE", required = true,
                description = "Print the public key of the key in FILE (PKCS#8 PEM or DER, or 32 raw bytes).")
        Path show;
    }

    @Override
    public Integer call() {
        try {
            OwnerKey key;
            if (target.out != null) {
                key = OwnerKey.generate();
                key.write(target.out);
                spec.commandLine().getErr().println("wrote a new owner key to " + target.out);
            } else {
                key = OwnerKey.load(target.show);
            }
            spec.commandLine().getOut().println(key.publicKeyBase64Url());
            return 0;
        } catch (FileAlreadyExistsException e) {
            spec.commandLine().getErr().println("error: " + target.out + " exists; a key is never overwritten");
        } catch (IOException e) {
            spec.commandLine().getErr().println("error: " + e.getMessage());
        }
        return RattanCli.EXIT_FAILED;
    }
}
