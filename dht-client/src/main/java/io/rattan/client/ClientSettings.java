package io.rattan.client;

import io.micrometer.core.instrument.MeterRegistry;
import io.rattan.api.Address;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.util.Ed25519Pem;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * The settings and setters of {@link RattanClient.Builder}: every default, and the checks that reject a nonsensical
 * value at once. Its own class so that RattanClient.java holds the client's operations, not its configuration; the
 * public type stays {@code RattanClient.Builder}, which adds only {@code build()}. Generic in the builder type only
 * so that each setter returns {@code RattanClient.Builder}, for chaining.
 *
 * @param <B> the builder, {@link RattanClient.Builder}
 */
abstract class ClientSettings<B extends ClientSettings<B>> {

    private final List<Address> gateways = new ArrayList<>();
    private Duration attemptTimeout = Duration.ofSeconds(2);
    private Duration totalTimeout = Duration.ofSeconds(10);
    private int maxRetries = 3;
    private Duration backoffBase = Duration.ofMillis(50);
    private Duration backoffMax = Duration.ofSeconds(1);
    private Duration connectTimeout = Duration.ofSeconds(2);
    private MeterRegistry meterRegistry;
    private Executor executor;
    private int eventLoopThreads = 1;
    private int maxRequestsInFlight = 65_536;
    private boolean loadRing = true;
    private int protocolVersion = MessageCodec.VERSION;
    private SSLContext tls;

    ClientSettings() {
    }

    /** This builder, as its own type. */
    abstract B self();

    /**
     * Adds a gateway, as {@code host:port} ({@code [v6addr]:port} for an IPv6 literal). At least one gateway is
     * required; a repeated one is ignored.
     *
     * @throws IllegalArgumentException if {@code hostPort} does not parse
     */
    public B gateway(String hostPort) {
        return gateway(Address.parse(hostPort));
    }

    /** Adds a gateway; a repeated one is ignored. */
    public B gateway(Address address) {
        Objects.requireNonNull(address, "address");
        if (!gateways.contains(address)) {
            gateways.add(address);
        }
        return self();
    }

    /** Adds gateways in order; repeated ones are ignored. */
    public B gateways(List<Address> addresses) {
        Objects.requireNonNull(addresses, "addresses");
        for (Address a : addresses) {
            gateway(a);
        }
        return self();
    }

    /**
     * How long one attempt (connecting if needed, sending, waiting for the reply) may take before the call moves
     * on to the next gateway. Default 2 s. An attempt never outlives the total timeout.
     */
    public B attemptTimeout(Duration timeout) {
        this.attemptTimeout = ClientConfig.requirePositive(timeout, "attemptTimeout");
        return self();
    }

    /**
     * How long a whole call may take, every attempt and backoff included (for {@link RattanClient#get(Id)},
     * every page). Default 10 s. When it passes, the call fails with {@link Status#TIMEOUT}.
     */
    public B totalTimeout(Duration timeout) {
        this.totalTimeout = ClientConfig.requirePositive(timeout, "totalTimeout");
        return self();
    }

    /** How many times a call is retried after its first attempt fails transiently; 0 disables. Default 3. */
    public B maxRetries(int retries) {
        this.maxRetries = ClientConfig.requireAtLeast(retries, 0, "maxRetries");
        return self();
    }

    /**
     * Backoff between attempts: before retry n the call waits a uniformly random time in
     * [0, min(max, base * 2^(n-1))] (capped exponential backoff with full jitter). {@code max} is also how
     * long a gateway that refused a connection is avoided before it is probed again (doubling after each refused
     * probe, up to 32 times {@code max}). Defaults 50 ms and 1 s.
     *
     * @throws IllegalArgumentException unless {@code 0 < base <= max}
     */
    public B backoff(Duration base, Duration max) {
        ClientConfig.requirePositive(base, "backoff base");
        ClientConfig.requirePositive(max, "backoff max");
        ClientConfig.requireOrdered(base, max);
        this.backoffBase = base;
        this.backoffMax = max;
        return self();
    }

    /** How long opening a TCP connection to a gateway may take (whole milliseconds, at least 1). Default 2 s. */
    public B connectTimeout(Duration timeout) {
        ClientConfig.requirePositive(timeout, "connectTimeout");
        this.connectTimeout = ClientConfig.requireWholeMillis(timeout);
        return self();
    }

    /** Where to record the client's meters (see {@link RattanClient}); default none. */
    public B meterRegistry(MeterRegistry registry) {
        this.meterRegistry = Objects.requireNonNull(registry, "registry");
        return self();
    }

    /**
     * Where returned futures complete, and so where callbacks attached to them run (see {@link RattanClient}'s
     * threads). The client never shuts down an executor given here. Default: a pool of the client's own of
     * max(2, available processors) daemon threads, stopped by {@link RattanClient#close()}. Never an event loop
     * of the client's: a direct executor ({@code Runnable::run}) would run callbacks on the I/O threads again.
     */
    public B executor(Executor executor) {
        this.executor = Objects.requireNonNull(executor, "executor");
        return self();
    }

    /** Netty event-loop threads (daemon threads named {@code rattan-client-*}). Default 1. */
    public B eventLoopThreads(int threads) {
        this.eventLoopThreads = ClientConfig.requireAtLeast(threads, 1, "eventLoopThreads");
        return self();
    }

    /**
     * How many calls may be in flight or waiting to retry at once; a call beyond it fails at once with
     * {@link Status#UNAVAILABLE} instead of queueing without bound. Default 65536.
     */
    public B maxRequestsInFlight(int max) {
        this.maxRequestsInFlight = ClientConfig.requireAtLeast(max, 1, "maxRequestsInFlight");
        return self();
    }

    /**
     * Whether the client loads the ring (the nodes its first answering gateway knows, with their gateways) when it is
     * built, and refreshes it about every minute, in the background: its {@code oneHop} gets then go straight to a
     * key's replicas from the first get. Off, the image of the ring is learned from the answers of one-hop gets
     * alone, so the first get of each key is routed. Default true.
     */
    public B loadRing(boolean load) {
        this.loadRing = load;
        return self();
    }

    /**
     * The protocol version the client speaks: {@link MessageCodec#VERSION}, the default, or an older one this build
     * speaks (down to {@link MessageCodec#VERSION_OLDEST}), to use gateways of an earlier release (a rolling upgrade upgrades the nodes first, then the clients: a node
     * answers each client in the version it spoke).
     *
     * @throws IllegalArgumentException if this build does not speak {@code version}
     */
    public B protocolVersion(int version) {
        if (!MessageCodec.isSpoken(version)) {
            throw new IllegalArgumentException("protocol version " + version + " is not spoken by this client: "
                    + MessageCodec.VERSION_OLDEST + " to " + MessageCodec.VERSION);
        }
        this.protocolVersion = version;
        return self();
    }

    /**
     * Speaks TLS to every gateway (nodes started with {@code --client-tls-cert}), trusting what {@code context}
     * trusts; a gateway's certificate must name the host it is dialed at (an IP address or a DNS name), as HTTPS
     * checks. Default: no TLS.
     */
    public B tls(SSLContext context) {
        this.tls = Objects.requireNonNull(context, "context");
        return self();
    }

    /**
     * Speaks TLS to every gateway, trusting the CA certificates in {@code caFile} (PEM: a cluster CA's
     * {@code ca.crt}, say) and no others.
     *
     * @throws IOException if the file cannot be read or holds no certificate
     */
    public B tlsTrusting(Path caFile) throws IOException {
        return tlsTrusting(caFile, null, null);
    }

    /**
     * As {@link #tlsTrusting(Path)}, presenting the client certificate in {@code certFile} (PEM) with its Ed25519
     * key in {@code keyFile} (PKCS#8 PEM), as gateways run with {@code --client-ca} require ({@code rattan certs
     * client} makes both); null for both presents none.
     *
     * @throws IOException if a file cannot be read or holds no certificate or key
     */
    public B tlsTrusting(Path caFile, Path certFile, Path keyFile) throws IOException {
        if ((certFile == null) != (keyFile == null)) {
            throw new IllegalArgumentException("a client certificate needs its key, and a key its certificate");
        }
        try {
            KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
            trusted.load(null, null);
            List<Certificate> cas = certificates(caFile);
            for (int i = 0; i < cas.size(); i++) {
                trusted.setCertificateEntry("ca-" + i, cas.get(i));
            }
            TrustManagerFactory trust = TrustManagerFactory.getInstance("PKIX");
            trust.init(trusted);
            KeyManager[] keys = null;
            if (certFile != null) {
                char[] password = "rattan".toCharArray();
                KeyStore own = KeyStore.getInstance("PKCS12");
                own.load(null, null);
                PrivateKey key = KeyFactory.getInstance("Ed25519").generatePrivate(new PKCS8EncodedKeySpec(
                        Ed25519Pem.pkcs8(Ed25519Pem.decode(Files.readAllBytes(keyFile), keyFile.toString()))));
                own.setKeyEntry("client", key, password, certificates(certFile).toArray(Certificate[]::new));
                KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                factory.init(own, password);
                keys = factory.getKeyManagers();
            }
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys, trust.getTrustManagers(), null);
            return tls(context);
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot make a TLS context of " + caFile
                    + (certFile == null ? "" : ", " + certFile + " and " + keyFile) + ": " + e.getMessage(), e);
        }
    }

    private static List<Certificate> certificates(Path file) throws IOException, GeneralSecurityException {
        try (InputStream in = Files.newInputStream(file)) {
            List<Certificate> out = new ArrayList<>(CertificateFactory.getInstance("X.509").generateCertificates(in));
            if (out.isEmpty()) {
                throw new IOException(file + " holds no PEM certificate");
            }
            return out;
        }
    }

    /**
     * The settings as they stand, checked as a whole.
     *
     * @throws IllegalStateException if no gateway was given
     */
    ClientConfig config() {
        return new ClientConfig(gateways, attemptTimeout, totalTimeout, maxRetries, backoffBase, backoffMax,
                connectTimeout, eventLoopThreads, maxRequestsInFlight, meterRegistry, executor, loadRing,
                protocolVersion, tls);
    }
}
