package io.rattan.node.gateway.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A watch's event stream read with java.net.http, the way a program other than a browser reads it: lines parsed into
 * events as the SSE format says (id, event, data, a blank line ends one; comment lines skipped) on a reader thread.
 */
final class SseTestClient implements AutoCloseable {

    /** One event as the stream carried it; {@code id} null when it had none. */
    record Event(String id, String name, JsonNode data) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration WAIT = Duration.ofSeconds(60);

    private final HttpResponse<InputStream> response;
    private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
    /** Comment lines seen, and whether the stream reached its end (EOF, or a failure once closed). */
    private volatile int comments;
    private volatile boolean finished;

    private SseTestClient(HttpResponse<InputStream> response) {
        this.response = response;
        if (response.statusCode() == 200) {
            Thread reader = new Thread(this::read, "sse-test-reader");
            reader.setDaemon(true);
            reader.start();
        }
    }

    /** Opens a watch; returns once the head (or a problem) arrived. */
    static SseTestClient open(HttpClient http, URI uri, String lastEventId) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).GET().header("Accept", "text/event-stream");
        if (lastEventId != null) {
            b.header("Last-Event-ID", lastEventId);
        }
        return new SseTestClient(http.send(b.build(), HttpResponse.BodyHandlers.ofInputStream()));
    }

    int status() {
        return response.statusCode();
    }

    HttpResponse<InputStream> response() {
        return response;
    }

    /** The body of an answer that is not a stream (a problem), as JSON. */
    JsonNode problem() throws Exception {
        try (InputStream in = response.body()) {
            return JSON.readTree(in);
        }
    }

    /** The next event; fails when none comes within a generous bound. */
    Event next() throws InterruptedException {
        Event e = events.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(e).as("an event within %s", WAIT).isNotNull();
        return e;
    }

    /** Events up to and including the first that {@code last} accepts. */
    List<Event> until(Predicate<Event> last) throws InterruptedException {
        List<Event> seen = new ArrayList<>();
        Event e;
        do {
            e = next();
            seen.add(e);
        } while (!last.test(e));
        return seen;
    }

    /** Events already received and not taken yet. */
    List<Event> drained() {
        List<Event> out = new ArrayList<>();
        events.drainTo(out);
        return out;
    }

    boolean finished() {
        return finished;
    }

    int comments() {
        return comments;
    }

    private void read() {
        String id = null;
        String name = null;
        String data = null;
        // The reader's own BufferedReader: close() shuts the body's InputStream under it without taking the reader's
        // lock, which a blocked readLine holds (closing an ofLines stream from another thread would wait for data).
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(response.body(),
                StandardCharsets.UTF_8))) {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                if (line.isEmpty()) {
                    if (name != null) {
                        events.add(new Event(id, name, JSON.readTree(data)));
                    }
                    id = null;
                    name = null;
                    data = null;
                } else if (line.startsWith(":")) {
                    comments++;
                } else if (line.startsWith("id: ")) {
                    id = line.substring(4);
                } else if (line.startsWith("event: ")) {
                    name = line.substring(7);
                } else if (line.startsWith("data: ")) {
                    data = line.substring(6);
                }
            }
        } catch (IOException e) {
            // Closed by the test, or by the server.
        } finally {
            finished = true;
        }
    }

    @Override
    public void close() throws IOException {
        response.body().close();
    }
}
