package io.rattan.core.node;

/**
 * What the per-IP bound of the leaf set and the routing table counts ids by: the host's IPv4 address, the /64 prefix
 * of its IPv6 address (one subscriber line or one cloud host gets a whole /64, so an IPv6 attacker has 2^64
 * addresses but few /64s), or, for a host that is not an IP literal (a virtual-world host such as {@code node17}),
 * the host string itself. Written by hand rather than with {@code InetAddress}, which may resolve names (DNS, on the
 * node's thread) and which {@code dht-core} does not use; every textual form of one address gives one key (leading
 * zeros, {@code ::} compression, an IPv4-mapped IPv6 address, a zone index), so a peer cannot count as several hosts
 * by spelling its address differently.
 */
final class HostKeys {

    private HostKeys() {
    }

    /** The key of {@code host}. Cheap for a virtual host name: one scan of its characters. */
    static String of(String host) {
        boolean colon = false;
        boolean digitsAndDots = true;
        for (int i = 0; i < host.length(); i++) {
            char ch = host.charAt(i);
            if (ch == ':') {
                colon = true;
                break;
            }
            if (ch != '.' && (ch < '0' || ch > '9')) {
                digitsAndDots = false;
            }
        }
        if (colon) {
            String v6 = ipv6Key(host);
            return v6 != null ? v6 : host.toLowerCase(java.util.Locale.ROOT);
        }
        if (digitsAndDots) {
            long v4 = ipv4(host);
            if (v4 >= 0) {
                return ipv4Key(v4);
            }
        }
        return host.toLowerCase(java.util.Locale.ROOT);
    }

    /** The address as a number, or -1 when {@code s} is not a dotted quad of decimal octets. */
    static long ipv4(String s) {
        long value = 0;
        int parts = 0;
        int start = 0;
        while (start <= s.length()) {
            int end = s.indexOf('.', start);
            if (end < 0) {
                end = s.length();
            }
            if (end == start || end - start > 3) {
                return -1;
            }
            int octet = 0;
            for (int i = start; i < end; i++) {
                char ch = s.charAt(i);
                if (ch < '0' || ch > '9') {
                    return -1;
                }
                octet = octet * 10 + (ch - '0');
            }
            if (octet > 255 || ++parts > 4) {
                return -1;
            }
            value = value << 8 | octet;
            start = end + 1;
        }
        return parts == 4 ? value : -1;
    }

    private static String ipv4Key(long v4) {
        return (v4 >>> 24 & 255) + "." + (v4 >>> 16 & 255) + "." + (v4 >>> 8 & 255) + "." + (v4 & 255);
    }

    /** The /64 key of an IPv6 literal (an IPv4-mapped one keys as its IPv4 address), or null when it is none. */
    private static String ipv6Key(String host) {
        int[] groups = ipv6Groups(host);
        if (groups == null) {
            return null;
        }
        if (groups[0] == 0 && groups[1] == 0 && groups[2] == 0 && groups[3] == 0 && groups[4] == 0
                && groups[5] == 0xffff) {
            return ipv4Key((long) groups[6] << 16 | groups[7]);
        }
        return Integer.toHexString(groups[0]) + ":" + Integer.toHexString(groups[1]) + ":"
                + Integer.toHexString(groups[2]) + ":" + Integer.toHexString(groups[3]) + "::/64";
    }

    /** The eight 16-bit groups of an IPv6 literal (brackets and a zone index allowed), or null. */
    static int[] ipv6Groups(String host) {
        String s = host;
        if (s.startsWith("[") && s.endsWith("]")) {
            s = s.substring(1, s.length() - 1);
        }
        int zone = s.indexOf('%');
        if (zone >= 0) {
            s = s.substring(0, zone);
        }
        int gap = s.indexOf("::");
        if (gap >= 0 && s.indexOf("::", gap + 1) >= 0) {
            return null;
        }
        int[] head = gap >= 0 ? groups(s.substring(0, gap), false) : groups(s, true);
        int[] tail = gap >= 0 ? groups(s.substring(gap + 2), true) : new int[0];
        if (head == null || tail == null) {
            return null;
        }
        int n = head.length + tail.length;
        if (gap >= 0 ? n > 7 : n != 8) {
            return null;
        }
        int[] all = new int[8];
        System.arraycopy(head, 0, all, 0, head.length);
        System.arraycopy(tail, 0, all, 8 - tail.length, tail.length);
        return all;
    }

    /** The groups of a colon-separated run ("" is none); {@code mayEndInIpv4}: its last part may be a dotted quad. */
    private static int[] groups(String run, boolean mayEndInIpv4) {
        if (run.isEmpty()) {
            return new int[0];
        }
        String[] parts = run.split(":", -1);
        int last = parts.length - 1;
        boolean v4 = mayEndInIpv4 && parts[last].indexOf('.') >= 0;
        int[] out = new int[parts.length + (v4 ? 1 : 0)];
        for (int i = 0; i < parts.length; i++) {
            String p = parts[i];
            if (i == last && v4) {
                long quad = ipv4(p);
                if (quad < 0) {
                    return null;
                }
                out[i] = (int) (quad >>> 16);
                out[i + 1] = (int) (quad & 0xffff);
                continue;
            }
            if (p.isEmpty() || p.length() > 4) {
                return null;
            }
            int g = 0;
            for (int k = 0; k < p.length(); k++) {
                int d = Character.digit(p.charAt(k), 16);
                if (d < 0) {
                    return null;
                }
                g = g << 4 | d;
            }
            out[i] = g;
        }
        return out;
    }
}
