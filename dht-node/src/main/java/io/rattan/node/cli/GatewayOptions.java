package io.rattan.node.cli;

import io.rattan.api.Address;
import io.rattan.client.RattanClient;
import io.rattan.core.msg.NamespaceDefinition;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** Where a client command sends its request, and how long it may take. */
final class GatewayOptions {

    @Option(names = {"-g", "--gateway"}, paramLabel = "HOST:PORT", split = ",",
            converter = Converters.AddressConverter.class, defaultValue = "127.0.0.1:4001",
            description = "Binary client gateway(s) of any node; with several, a failed attempt moves to the next.")
    List<Address> gateways = new ArrayList<>();

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "10",
            description = "Give up after this long, retries included.")
    int timeoutSeconds;

    @Option(names = "--ns", paramLabel = "NAME", defaultValue = NamespaceDefinition.DEFAULT,
            description = "The namespace of the keys (made with 'rattan namespaces create'); default: the node's own.")
    String namespace;

    @Option(names = "--tls-ca", paramLabel = "FILE",
            description = "Speak TLS to the gateways (nodes run with --client-tls-cert), trusting the CA "
                    + "certificate(s) in FILE (PEM; a cluster's ca.crt). The gateway's certificate must name the host "
                    + "given in --gateway.")
    Path tlsCa;

    @Option(names = "--tls-cert", paramLabel = "FILE",
            description = "With --tls-ca: present this client certificate (PEM; `rattan certs client`), as gateways "
                    + "run with --client-ca require. Needs --tls-key.")
    Path tlsCert;

    @Option(names = "--tls-key", paramLabel = "FILE", description = "The Ed25519 key of --tls-cert (PKCS#8 PEM).")
    Path tlsKey;

    @Spec(Spec.Target.MIXEE)
    private CommandSpec mixee;

    /** A client for these gateways in the namespace; a usage error for a timeout below one second. */
    RattanClient client() {
        return inNamespace(builder().build());
    }

    /**
     * A client builder for these gateways, for a command that sets more (and makes its client with
     * {@link #inNamespace}); the same usage error, and one for a malformed namespace name.
     */
    RattanClient.Builder builder() {
        if (!NamespaceDefinition.validName(namespace)) {
            throw new ParameterException(mixee.commandLine(), "--ns: a namespace's name is 1.."
                    + NamespaceDefinition.NAME_CHARS_MAX + " of a-z 0-9 . _ -, starting with a letter or digit, got '"
                    + namespace + "'");
        }
        if (timeoutSeconds < 1) {
            throw new ParameterException(mixee.commandLine(), "--timeout must be at least 1 second, got "
                    + timeoutSeconds);
        }
        RattanClient.Builder builder = RattanClient.builder()
                .gateways(gateways)
                .totalTimeout(Duration.ofSeconds(timeoutSeconds));
        if (tlsCa == null && (tlsCert != null || tlsKey != null)) {
            throw new ParameterException(mixee.commandLine(), "--tls-cert and --tls-key need --tls-ca");
        }
        if (tlsCa != null) {
            try {
                builder.tlsTrusting(tlsCa, tlsCert, tlsKey);
            } catch (IOException | IllegalArgumentException e) {
                throw new ParameterException(mixee.commandLine(), "TLS: " + e.getMessage(), e);
            }
        }
        return builder;
    }

    /** {@code client} in the namespace {@code --ns} names (checked by {@link #builder()}). */
    RattanClient inNamespace(RattanClient client) {
        return client.namespace(namespace);
    }
}
