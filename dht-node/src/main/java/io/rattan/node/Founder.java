package io.rattan.node;

import io.rattan.core.net.Address;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code --founder-host}: which one node of a set started alike (a Kubernetes StatefulSet's pods, all told the same
 * bootstrap name) founds the overlay. The node on the named host founds it when its bootstrap names no other node,
 * as on the first start of a StatefulSet's pod 0, when the headless Service lists only itself; when others are
 * listed (pod 0 restarted beside running pods) it joins them as every other node does.
 */
public final class Founder {

    /** Resolutions of the bootstrap list that must all name no other node before the founder founds. */
    static final int CHECKS = 3;

    private static final Logger log = LoggerFactory.getLogger(Founder.class);

    private Founder() {
    }

    /**
     * Whether the node that advertises {@code self} founds the overlay rather than join through {@code bootstrap}:
     * {@code founderHost} is this host's name ({@link #hostName}) and none of {@value #CHECKS} resolutions of the
     * list, {@link BootstrapResolver#PERIOD_MILLIS} apart (a name's record may lag its first pods), names another
     * node. Blocks for those resolutions; call it before the node starts.
     */
    public static boolean founds(String founderHost, String hostName, List<Address> bootstrap, Address self)
            throws InterruptedException {
        return founds(founderHost, hostName, bootstrap, self, BootstrapResolver.SYSTEM, BootstrapResolver.PERIOD_MILLIS);
    }

    static boolean founds(String founderHost, String hostName, List<Address> bootstrap, Address self,
                          BootstrapResolver.Lookup lookup, long periodMillis) throws InterruptedException {
        if (founderHost == null || !founderHost.equals(hostName)) {
            return false;
        }
        for (int i = 0; i < CHECKS; i++) {
            if (i > 0) {
                Thread.sleep(periodMillis);
            }
            List<Address> others = BootstrapResolver.resolve(bootstrap, self, lookup, host -> { });
            if (!others.isEmpty()) {
                log.info("node {}: this host is the founder host {}, but its bootstrap lists {}: joining them", self,
                        founderHost, others);
                return false;
            }
        }
        log.info("node {}: this host is the founder host {} and its bootstrap {} lists no other node: founding a new "
                + "overlay", self, founderHost, bootstrap);
        return true;
    }

    /**
     * This host's name as a pod or container has it: {@code HOSTNAME} from {@code env} (set by Docker and
     * Kubernetes), else the kernel's (no lookup needed), else the resolver's.
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
