package dev.weft.testbrowser;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * One DevTools protocol connection (a tab's WebSocket): numbered commands answered by id, and
 * events dispatched by method name. Internal to the harness.
 */
final class Cdp implements WebSocket.Listener {

    static final ObjectMapper MAPPER = new ObjectMapper();
    /** The longest a command may take before the harness gives up on it. */
    static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(60);

    private final AtomicInteger ids = new AtomicInteger();
    private final Map<Integer, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
    private final Map<String, List<Consumer<JsonNode>>> listeners = new ConcurrentHashMap<>();
    private final StringBuilder partial = new StringBuilder();
    private volatile WebSocket socket;
    private volatile Throwable broken;

    private Cdp() {}

    static Cdp connect(HttpClient client, URI ws) throws IOException {
        Cdp cdp = new Cdp();
        try {
            cdp.socket = client.newWebSocketBuilder()
                    .connectTimeout(Duration.ofSeconds(30))
                    .buildAsync(ws, cdp)
                    .get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while connecting to " + ws, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IOException("cannot connect to Chromium's DevTools at " + ws + ": " + e, e);
        }
        return cdp;
    }

    /** Calls {@code listener} with the params of every {@code method} event from now on. */
    void on(String method, Consumer<JsonNode> listener) {
        listeners.computeIfAbsent(method, m -> new CopyOnWriteArrayList<>()).add(listener);
    }

    /**
     * Sends a command and waits for its result.
     *
     * @throws DevToolsException when the browser answers with an error, the connection breaks,
     *                           or no answer comes within {@link #COMMAND_TIMEOUT}
     */
    JsonNode send(String method, Map<String, ?> params) {
        if (broken != null) {
            throw new DevToolsException(
                    "the DevTools connection is closed (" + broken + "); cannot send " + method, broken);
        }
        int id = ids.incrementAndGet();
        ObjectNode msg = MAPPER.createObjectNode().put("id", id).put("method", method);
        msg.set("params", MAPPER.valueToTree(params));
        CompletableFuture<JsonNode> answer = new CompletableFuture<>();
        pending.put(id, answer);
        try {
            synchronized (this) {
                socket.sendText(msg.toString(), true).get(COMMAND_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            }
            JsonNode response = answer.get(COMMAND_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            if (response.has("error")) {
                throw new DevToolsException(method + " failed: " + response.get("error"), null);
            }
            return response.path("result");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DevToolsException("interrupted while waiting for " + method, e);
        } catch (ExecutionException e) {
            throw new DevToolsException(method + " failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new DevToolsException(method + " got no answer within " + COMMAND_TIMEOUT.toSeconds() + " s", e);
        } finally {
            pending.remove(id);
        }
    }

    @Override
    public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
        partial.append(data);
        if (last) {
            String text = partial.toString();
            partial.setLength(0);
            dispatch(text);
        }
        webSocket.request(1);
        return null;
    }

    private void dispatch(String text) {
        JsonNode msg;
        try {
            msg = MAPPER.readTree(text);
        } catch (IOException e) {
            fail(new DevToolsException("unreadable DevTools message: " + text, e));
            return;
        }
        if (msg.has("id")) {
            CompletableFuture<JsonNode> f = pending.get(msg.get("id").asInt());
            if (f != null) {
                f.complete(msg);
            }
        } else if (msg.has("method")) {
            for (Consumer<JsonNode> l : listeners.getOrDefault(msg.get("method").asText(), List.of())) {
                l.accept(msg.path("params"));
            }
        }
    }

    @Override
    public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
        fail(new DevToolsException("Chromium closed the DevTools connection: " + statusCode + " " + reason, null));
        return null;
    }

    @Override
    public void onError(WebSocket webSocket, Throwable error) {
        fail(error);
    }

    private void fail(Throwable t) {
        broken = t;
        pending.values().forEach(f -> f.completeExceptionally(t));
    }

    /** Closes the connection (the tab stays until the browser ends). */
    void close() {
        WebSocket s = socket;
        if (s != null && broken == null) {
            broken = new IllegalStateException("closed by the harness");
            s.abort();
        }
    }
}
