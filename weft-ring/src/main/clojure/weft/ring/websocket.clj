(ns weft.ring.websocket
  "WebSockets in weft.ring, per Ring's WebSocket spec (Ring 1.11+), without needing ring-core.

  A handler answers a WebSocket upgrade request with a response map that has a
  `:ring.websocket/listener`: a map of functions, each optional,

      {:on-open    (fn [socket])
       :on-message (fn [socket message])     ; a String (text) or a ByteBuffer (binary)
       :on-pong    (fn [socket data])        ; a ByteBuffer
       :on-error   (fn [socket throwable])
       :on-close   (fn [socket code reason])}

  or, when ring-core is on the class path, any value that satisfies its
  `ring.websocket.protocols/Listener` (resolved at run time). `:ring.websocket/protocol`
  names the subprotocol to accept. A WebSocket response to a request that is not an
  upgrade request is answered 426.

  The socket value works with the functions below and, when ring-core is loaded, with
  `ring.websocket/send` and friends (weft extends ring-core's `Socket` and `AsyncSocket`
  protocols to it).

  Threads and order: a connection's events run one at a time, in order, on a virtual
  thread, so a listener may block; the next message is read from the network only after
  the listener returned from the previous one, so a slow listener slows its client down
  (TCP flow control) instead of growing a queue in the server. `send` blocks until the
  message is written; the asynchronous `send` lets at most 64 sends be pending per socket
  and blocks beyond that. Pings are answered by the server.

  Limits (options of `weft.ring/run-server`): `:websocket-max-message-bytes` (a larger
  message closes the socket with 1009) and `:websocket-idle-timeout`. `(weft.ring/stats
  server)` counts open sockets as `:websockets`; `stop-server!` closes them with 1001."
  (:refer-clojure :exclude [send])
  (:require [weft.impl.clojure-version]   ; first: on a Clojure older than weft supports, this fails naming the fix
            [clojure.string :as str])
  (:import (dev.weft.ring RingWebSocket)))

(set! *warn-on-reflection* true)

(defn open?
  "True while `socket` is open."
  [^RingWebSocket socket]
  (.isOpen socket))

(defn send
  "Sends `message` on `socket`: a String as a text message, a ByteBuffer or byte array as a
  binary one. With two arguments it blocks until the message is written (throws an
  IOException if it cannot be). With `succeed` (no arguments) and `fail` (the exception)
  it returns at once and calls one of them later; it blocks only while 64 sends are
  already pending on the socket."
  ([^RingWebSocket socket message]
   (.send socket message))
  ([^RingWebSocket socket message succeed fail]
   (.sendAsync socket message succeed fail)))

(defn ping
  "Sends a ping (with `data`, a ByteBuffer or byte array, if given); blocks until written.
  The client's pong arrives at the listener's `:on-pong`."
  ([socket] (ping socket nil))
  ([^RingWebSocket socket data] (.ping socket data)))

(defn pong
  "Sends an unsolicited pong (with `data`, a ByteBuffer or byte array, if given)."
  ([socket] (pong socket nil))
  ([^RingWebSocket socket data] (.pong socket data)))

(defn close
  "Closes `socket` with status `code` (default 1000, normal closure) and `reason`; returns
  at once, and the listener's `:on-close` runs once the close completes."
  ([socket] (close socket 1000 ""))
  ([^RingWebSocket socket code reason] (.close socket (int code) (str reason))))

(defn upgrade-request?
  "True when `request` (a Ring request map) asks to be upgraded to a WebSocket."
  [request]
  (let [headers (:headers request)
        upgrade (get headers "upgrade")
        connection (get headers "connection")]
    (boolean (and upgrade connection
                  (= "websocket" (str/lower-case upgrade))
                  (some #(= "upgrade" (str/lower-case (str/trim %))) (str/split connection #","))))))

(defn websocket-response?
  "True when `response` is a WebSocket response (has a `:ring.websocket/listener`)."
  [response]
  (and (map? response) (contains? response :ring.websocket/listener)))
