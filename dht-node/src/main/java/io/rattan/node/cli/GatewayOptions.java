package io.rattan.node.cli;

import io.rattan.client.RattanClient;
import io.rattan.core.net.Address;
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

    @Spec(Spec.Target.MIXEE)
    private CommandSpec mixee;

    /** A client for these gateways; a usage error for a timeout below one second. */
    RattanClient client() {
        return builder().build();
    }

    /** A client builder for these gateways, for a command that sets more; the same usage error. */
    RattanClient.Builder builder() {
        if (timeoutSeconds < 1) {
            throw new ParameterException(mixee.commandLine(), "--timeout must be at least 1 second, got "
                    + timeoutSeconds);
        }
        return RattanClient.builder()
                .gateways(gateways)
                .totalTimeout(Duration.ofSeconds(timeoutSeconds));
    }
}
