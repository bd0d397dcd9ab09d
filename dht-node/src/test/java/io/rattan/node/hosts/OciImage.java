package io.rattan.node.hosts;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An OCI image tarball unpacked as a container runtime would: its layers, in order, into one root filesystem, and its
 * configuration (entrypoint, arguments, environment, user) read from its index, manifest and config blobs.
 */
record OciImage(Path rootfs, List<String> entrypoint, List<String> args, Map<String, String> env, String user,
                int layers) {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Unpacks {@code tarball} under {@code work}: its layout in {@code layout/}, its layers in {@code rootfs/}. */
    static OciImage unpack(Path tarball, Path work) throws IOException {
        Path layout = Files.createDirectories(work.resolve("layout"));
        Path rootfs = Files.createDirectories(work.resolve("rootfs"));
        tar(List.of("tar", "-xf", tarball.toString(), "-C", layout.toString()));
        JsonNode index = JSON.readTree(layout.resolve("index.json").toFile());
        JsonNode manifest = blob(layout, index.get("manifests").get(0).get("digest").asText());
        JsonNode config = blob(layout, manifest.get("config").get("digest").asText()).get("config");
        int layers = 0;
        for (JsonNode layer : manifest.get("layers")) {
            String type = layer.get("mediaType").asText();
            if (!type.endsWith("tar+gzip")) {
                throw new IOException("a layer of an unexpected type: " + type);
            }
            // Run as root, tar keeps the layer's modes and owners.
            tar(List.of("tar", "-xzf", blobPath(layout, layer.get("digest").asText()).toString(), "-C",
                    rootfs.toString()));
            layers++;
        }
        Map<String, String> env = new LinkedHashMap<>();
        for (JsonNode e : config.path("Env")) {
            String s = e.asText();
            env.put(s.substring(0, s.indexOf('=')), s.substring(s.indexOf('=') + 1));
        }
        return new OciImage(rootfs, strings(config.path("Entrypoint")), strings(config.path("Cmd")), env,
                config.path("User").asText(""), layers);
    }

    private static JsonNode blob(Path layout, String digest) throws IOException {
        return JSON.readTree(blobPath(layout, digest).toFile());
    }

    private static Path blobPath(Path layout, String digest) {
        return layout.resolve("blobs").resolve(digest.substring(0, digest.indexOf(':')))
                .resolve(digest.substring(digest.indexOf(':') + 1));
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    private static void tar(List<String> command) throws IOException {
        NetnsHosts.Result r = NetnsHosts.run(command);
        if (r.exit() != 0) {
            throw new IOException(command + " failed (" + r.exit() + "): " + r.output());
        }
    }
}
