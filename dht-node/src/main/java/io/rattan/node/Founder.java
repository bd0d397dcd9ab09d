package io.rattan.node;

import com.google.common.net.InetAddresses;
import io.rattan.api.Address;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code --founder-host}: which one node of a set started alike (a Kubernetes StatefulSet's pods, all told the same
 * bootstrap name) founds the overlay. The node on the named host founds it at once when the name lists this node and
 * no other, as at the first start of a StatefulSet's pod 0; when others are listed it joins them, and founds the
 * overlay only if {@value #ROUNDS} rounds of join attempts through all of them go unanswered (nodes that have not
 * joined answer no join: every pod restarted at once). A name that does not resolve is looked up again, never taken
 * for "no other node", so that a DNS failure cannot split the overlay.
 */
public final class Founder {

    /** What the node on the founder host does. */
    public enum Decision {
        /** Not the founder host: join as any node does. */
        JOIN,
        /** The bootstrap lists only this node: found the overlay now. */
        FOUND,
        /** Others are listed: join them, found if they do not answer ({@link #ROUNDS} rounds). */
        JOIN_OR_FOUND
    }

    /** Resolutions in a row that must list this node and no other before it founds at once. */
    static final int CHECKS = 3;
    /** Rounds of unanswered join attempts through every listed node after which the founder founds. */
    public static final int ROUNDS = 3;

    private static final Logger log = LoggerFactory.getLogger(Founder.class);
    // A failed lookup is logged at INFO the first time and then every this many attempts.
    private static final int LOG_EVERY = 15;

    private Founder() {
    }

    /**
     * What the node advertising {@code self} does: {@link Decision#JOIN} unless {@code founderHost} is
     * {@code hostName}; else resolves {@code bootstrap} every {@link BootstrapResolver#PERIOD_MILLIS} until the
     * answer is clear (blocks: call it before the node starts). The JVM's DNS cache must be short for the looks to
     * be looks ({@code networkaddress.cache.ttl}, as {@code rattan} sets it).
     */
    public static Decision decide(String founderHost, String hostName, List<Address> bootstrap, Address self)
            throws InterruptedException {
        return decide(founderHost, hostName, bootstrap, self, BootstrapResolver.SYSTEM,
                BootstrapResolver.PERIOD_MILLIS);
    }

    static Decision decide(String founderHost, String hostName, List<Address> bootstrap, Address self,
                           BootstrapResolver.Lookup lookup, long periodMillis) throws InterruptedException {
        if (!founderHost.equals(hostName)) {
            log.info("node {}: this host ({}) is not the founder host {}: joining through {}", self, hostName,
                    founderHost, bootstrap);
            return Decision.JOIN;
        }
        int alone = 0;
        for (int look = 0; ; look++) {
            if (look > 0) {
                Thread.sleep(periodMillis);
            }
            Look l = look(bootstrap, self, lookup);
            if (!l.others().isEmpty()) {
                log.info("node {}: the founder host {}, but {} lists {}: joining them (founding if {} rounds of "
                        + "attempts go unanswered, or the name comes to list this node alone)", self, founderHost,
                        bootstrap, l.others(), ROUNDS);
                return Decision.JOIN_OR_FOUND;
            }
            alone = l.alone() ? alone + 1 : 0;
            if (alone == CHECKS) {
                log.info("node {}: the founder host {}, and {} lists this node alone: founding a new overlay", self,
                        founderHost, bootstrap);
                return Decision.FOUND;
            }
            if (!l.alone() && look % LOG_EVERY == 0) {
                log.info("node {}: the founder host {}, waiting for {} to list this node (unresolved: {}); looking "
                        + "again every {} ms", self, founderHost, bootstrap, l.failed(), periodMillis);
            }
        }
    }

    /**
     * For {@link Decision#JOIN_OR_FOUND}, on a daemon thread of its own: until {@code settled} (joined, or stopped),
     * looks at the bootstrap every {@link BootstrapResolver#PERIOD_MILLIS}; once {@value #CHECKS} looks in a row list
     * this node alone (the others left the name before any answered), runs {@code foundNow}.
     */
    public static void foundWhenAloneInBackground(List<Address> bootstrap, Address self, BooleanSupplier settled,
                                                  Runnable foundNow) {
        Thread t = new Thread(() -> {
            try {
                foundWhenAlone(bootstrap, self, settled, foundNow, BootstrapResolver.SYSTEM,
                        BootstrapResolver.PERIOD_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "rattan-founder-" + self.port());
        t.setDaemon(true);
        t.start();
    }

    static void foundWhenAlone(List<Address> bootstrap, Address self, BooleanSupplier settled, Runnable foundNow,
                               BootstrapResolver.Lookup lookup, long periodMillis) throws InterruptedException {
        int alone = 0;
        while (!settled.getAsBoolean()) {
            Thread.sleep(periodMillis);
            alone = look(bootstrap, self, lookup).alone() ? alone + 1 : 0;
            if (alone == CHECKS && !settled.getAsBoolean()) {
                log.info("node {}: {} now lists this node alone, before any other answered: founding a new overlay",
                        self, bootstrap);
                foundNow.run();
                return;
            }
        }
    }

    /** One resolution of the bootstrap: the other nodes it lists, whether it lists this node alone, what failed. */
    private record Look(List<Address> others, boolean alone, List<String> failed) {
    }

    private static Look look(List<Address> bootstrap, Address self, BootstrapResolver.Lookup lookup) {
        Address me = canonical(self);
        List<String> failed = new ArrayList<>();
        // Nothing left out: whether this node itself is listed matters too.
        List<Address> listed = BootstrapResolver.resolve(bootstrap, null, lookup, failed::add).stream()
                .map(Founder::canonical).toList();
        List<Address> others = listed.stream().filter(a -> !a.equals(me)).toList();
        return new Look(others, others.isEmpty() && failed.isEmpty() && listed.contains(me), failed);
    }

    /** IP literals in one form ({@code FD00::1} is {@code fd00::1}), as the resolver writes them. */
    private static Address canonical(Address a) {
        return InetAddresses.isInetAddress(a.host())
                ? new Address(InetAddresses.toAddrString(InetAddresses.forString(a.host())), a.port()) : a;
    }

    /**
     * This host's name as a pod or container has it: {@code HOSTNAME} from {@code env} (set by Docker and
     * Kubernetes), else the kernel's (no lookup needed), else the resolver's; empty when none is known.
     */
    public static String hostName(Map<String, String> env) {
        String fromEnv = env.get("HOSTNAME");
        if (fromEnv != null && !fromEnv.isBlank()) {
            return fromEnv.trim();
        }
        try {
            return Files.readString(Path.of("/proc/sys/kernel/hostname")).trim();
        } catch (IOException e) {
            try {
                return InetAddress.getLocalHost().getHostName();
            } catch (IOException again) {
                return "";
            }
        }
    }
}
