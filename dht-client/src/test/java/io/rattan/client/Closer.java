package io.rattan.client;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What a test opened (fake gateways, clients), closed after each test, last opened first: a client before the
 * gateways it talks to. Registered as a field with {@code @RegisterExtension}.
 */
final class Closer implements AfterEachCallback {

    private final List<AutoCloseable> tracked = new ArrayList<>();

    /** Closes {@code closeable} after the test; returns it. */
    <T extends AutoCloseable> T track(T closeable) {
        tracked.add(closeable);
        return closeable;
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        for (int i = tracked.size() - 1; i >= 0; i--) {
            tracked.get(i).close();
        }
        tracked.clear();
    }
}
