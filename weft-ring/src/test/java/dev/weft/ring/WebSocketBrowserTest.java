package dev.weft.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;

import clojure.java.api.Clojure;
import clojure.lang.IFn;
import clojure.lang.Keyword;
import clojure.lang.RT;
import dev.weft.testbrowser.Chromium;
import dev.weft.testbrowser.Page;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A real browser (Debian's headless Chromium) opens a page served by weft-ring and talks to it over
 * a WebSocket: the server's greeting, echoes in order, and a close code seen by both sides.
 */
@Tag("browser")
class WebSocketBrowserTest {

    private static final String PAGE = """
            <!doctype html><html><head><title>ws</title></head><body><script>
            window.result = new Promise((resolve, reject) => {
              const got = [];
              const ws = new WebSocket("ws://" + location.host + "/ws");
              ws.onmessage = e => {
                got.push(e.data);
                if (e.data === "hello") { for (let i = 0; i < 50; i++) ws.send("m" + i); }
                if (got.length === 51) ws.close(4000, "browser done");
              };
              ws.onclose = e => resolve({got: got, code: e.code});
              ws.onerror = e => reject(new Error("websocket error"));
            });
            </script></body></html>
            """;

    @Test
    void chromiumTalksToTheServerOverAWebSocket() throws Exception {
        IFn require = Clojure.var("clojure.core", "require");
        require.invoke(Clojure.read("weft.ring"));
        require.invoke(Clojure.read("weft.ring.websocket"));
        IFn runServer = Clojure.var("weft.ring", "run-server");
        IFn stopServer = Clojure.var("weft.ring", "stop-server!");
        IFn eval = Clojure.var("clojure.core", "eval");
        // The handler in Clojure, as a user writes it: the page, and a WebSocket that echoes.
        Object closes = Clojure.var("clojure.core", "atom").invoke(clojure.lang.PersistentVector.EMPTY);
        IFn handler = (IFn) eval.invoke(Clojure.read("""
                (fn [page closes]
                  (fn [req]
                    (if (= "/ws" (:uri req))
                      {:ring.websocket/listener
                       {:on-open (fn [socket] (weft.ring.websocket/send socket "hello"))
                        :on-message (fn [socket message] (weft.ring.websocket/send socket (str "echo " message)))
                        :on-close (fn [_ code reason] (swap! closes conj [code reason]))}}
                      {:status 200 :headers {"content-type" "text/html"} :body page})))
                """));
        Object server = runServer.invoke(
                handler.invoke(PAGE, closes), RT.map(Keyword.intern("port"), 0, Keyword.intern("host"), "127.0.0.1"));
        try (Chromium chromium = Chromium.start();
                Page page = chromium.newPage()) {
            int port = ((Number) RT.get(server, Keyword.intern("port"))).intValue();
            page.open("http://127.0.0.1:" + port + "/");
            @SuppressWarnings("unchecked")
            Map<String, Object> result = (Map<String, Object>) page.evaluate("window.result");
            List<?> got = (List<?>) result.get("got");
            assertEquals("hello", got.get(0));
            for (int i = 0; i < 50; i++) {
                assertEquals("echo m" + i, got.get(i + 1), "in order");
            }
            assertEquals(4000, ((Number) result.get("code")).intValue(), "the browser saw its own close code echoed");
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (((clojure.lang.IDeref) closes).deref().equals(clojure.lang.PersistentVector.EMPTY)
                    && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(
                    Clojure.read("[[4000 \"browser done\"]]"),
                    ((clojure.lang.IDeref) closes).deref(),
                    "the server's on-close got the browser's code and reason");
            assertEquals(List.of(), page.consoleErrors());
        } finally {
            stopServer.invoke(server);
        }
    }
}
