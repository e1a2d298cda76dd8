(ns weft.lab.http
  "The Ring handler of the `http` scenario (article 003), and the weft-ring servers that
  serve it in a JVM of their own (`dev.weft.lab.scenarios.http.HttpServerMain`)."
  (:require [weft.ring :as ring]
            [weft.ring.websocket :as ws]))

(set! *warn-on-reflection* true)

(def ^:private sleep-ms 50)

(def ^:private echo
  "The WebSocket echo of the `weft-ring-ws` variant: each message goes back as it came, with a
  blocking send on the socket's own virtual thread."
  {:on-message (fn [socket message] (ws/send socket message))})

(defn handler
  "The article's handler: on /hello it sleeps 50 ms (a slow backend call) and answers
  <b>hello!</b> as text/html; /nosleep answers the same at once; /ws upgrades to a WebSocket
  that echoes every message; anything else is 404."
  [req]
  (case (:uri req)
    "/hello" (do (Thread/sleep (long sleep-ms))
                 {:status 200 :headers {"Content-Type" "text/html"} :body "<b>hello!</b>"})
    "/nosleep" {:status 200 :headers {"Content-Type" "text/html"} :body "<b>hello!</b>"}
    "/ws" {:ring.websocket/listener echo}
    {:status 404 :headers {} :body "not found"}))

(defn start!
  "Starts weft-ring with its defaults on a free port of 127.0.0.1; returns the port."
  []
  (:port (ring/run-server handler {:port 0 :host "127.0.0.1"})))

(defn start-h2c!
  "Starts a second weft-ring server, with HTTP/2 on (h2c on its plain port), on a free port of
  127.0.0.1; returns the port. The first server stays HTTP/1.1 only, as plain Jetty is."
  []
  (:port (ring/run-server handler {:port 0 :host "127.0.0.1" :http2? true})))
