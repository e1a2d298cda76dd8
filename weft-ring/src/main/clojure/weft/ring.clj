(ns weft.ring
  "A Ring server on Jetty 12 that calls every handler on its own virtual thread.

      (require '[weft.ring :as ring])
      (def server (ring/run-server (fn [req] {:status 200 :body \"hello\"}) {:port 8080}))
      (ring/stop-server server)   ; drains: in-flight requests finish first

  - `run-server` starts a server and returns it at once; `(:port server)` is the port
    it listens on (useful with `:port 0`, which picks a free one).
  - `stop-server` drains: it stops accepting, lets the requests in flight finish within a
    timeout, then closes. The server is also `java.lang.AutoCloseable` (`with-open`).
  - `stats` tells what is in flight, waiting and rejected.

  Threads: Jetty's acceptor and selector threads (a fixed pool of 16 platform threads
  named `weft-ring-jetty-*`) only accept and select; each request is read, parsed and
  handled on a new virtual thread named `weft-ring-<n>`, which calls the handler and
  writes the response, so handlers (and response bodies) may block.

  Requests follow Ring SPEC 1.5: `:server-port`, `:server-name`, `:remote-addr`, `:uri`
  (the raw path), `:query-string` (nil without one), `:scheme`, `:request-method`,
  `:protocol`, `:headers` (names lowercased; a repeated header's values joined with a
  comma, cookies with a semicolon and a space) and `:body`, an InputStream (empty when the
  request has none). The deprecated `:content-type`, `:content-length` and
  `:character-encoding` are left out; their values are in `:headers`. Response bodies
  may be String, byte[], ISeq, File, InputStream or nil, and any type that extends
  `weft.ring.protocols/StreamableResponseBody`.

  WebSockets: a response map with `:ring.websocket/listener` to an upgrade request opens a
  WebSocket, per Ring's spec; see `weft.ring.websocket`.

  Errors: a handler that throws (or returns something that is not a response map) gets a
  500 with no detail sent to the client; the exception is logged once through SLF4J
  (logger `dev.weft.ring.RingHandler`), and the server keeps serving. Bad requests are
  answered without calling the handler: 400 for a malformed request line or
  Content-Length, 431 for headers over `:max-header-bytes`, 413 for a declared body over
  `:max-body-bytes`. A body that fails while the handler reads it is the client's fault:
  413 when a chunked body grows past `:max-body-bytes`, 400 when it is malformed, 408 when
  the client stops sending it (the handler's read throws; whatever it does then, the
  request is answered with that status and Connection: close). Clients idle longer than `:idle-timeout-ms` are closed; slow
  or stuck clients hold a connection, never a thread, so they do not stall the others."
  (:require [weft.ring.impl.websocket :as websocket]
            [weft.ring.protocols :as protocols])
  (:import (dev.weft.limit Limiter)
           (dev.weft.ring RingConnector RingHandler)
           (java.time Duration)
           (java.util.concurrent TimeoutException)
           (org.eclipse.jetty.server ConnectionFactory HttpConfiguration HttpConnectionFactory Server)
           (org.eclipse.jetty.server.handler ErrorHandler)
           (org.eclipse.jetty.util.thread QueuedThreadPool)))

(set! *warn-on-reflection* true)

(def ^:private jetty-threads
  "Jetty's own pool of platform threads: acceptors and selectors (at most 8 with Jetty's
  defaults) and the callbacks of finished writes. Requests never run on it."
  16)

(def ^:private defaults
  {:port 8080
   :host nil
   :async? false
   :max-in-flight nil
   :queue-timeout-ms nil
   :retry-after-s 1
   :request-timeout-ms nil
   :backlog 1024
   :idle-timeout-ms 30000
   :request-read-timeout 30000
   :websocket-idle-timeout 30000
   :websocket-max-message-bytes (* 1024 1024)
   :max-header-bytes 8192
   :max-body-bytes (* 10 1024 1024)
   :acceptors nil
   :selectors nil})

(defn- int-in [lo hi] (fn [v] (and (int? v) (<= lo v hi))))
(defn- duration-or-nil [v]
  (or (nil? v) (and (int? v) (pos? v))
      (and (instance? Duration v) (not (.isNegative ^Duration v)) (not (.isZero ^Duration v)))))
(defn- ->duration ^Duration [v] (cond (nil? v) nil (instance? Duration v) v :else (Duration/ofMillis (long v))))
(defn- pos-int-or-nil [v] (or (nil? v) (and (int? v) (pos? v))))

(def ^:private checks
  "Option -> [valid? what-it-must-be]."
  {:port [(int-in 0 65535) "an integer from 0 to 65535 (0 picks a free port)"]
   :host [#(or (nil? %) (string? %)) "a host name or address string, e.g. \"127.0.0.1\", or nil for every interface"]
   :async? [boolean? "true or false"]
   :max-in-flight [pos-int-or-nil "a positive integer, or nil for no limit"]
   :max-queued [#(and (int? %) (<= 0 %)) "an integer >= 0"]
   :queue-timeout-ms [pos-int-or-nil "a positive number of milliseconds, or nil to wait as long as it takes"]
   :retry-after-s [#(and (int? %) (<= 0 %)) "a number of seconds >= 0"]
   :request-timeout-ms [pos-int-or-nil "a positive number of milliseconds, or nil for no timeout"]
   :backlog [(int-in 1 Integer/MAX_VALUE) "a positive integer (the OS caps it at net.core.somaxconn)"]
   :idle-timeout-ms [(int-in 1 Integer/MAX_VALUE) "a positive number of milliseconds"]
   :request-read-timeout [duration-or-nil "a positive java.time.Duration or number of milliseconds, or nil for no deadline"]
   :websocket-idle-timeout [#(and (some? %) (duration-or-nil %)) "a positive java.time.Duration or number of milliseconds"]
   :websocket-max-message-bytes [(int-in 1 Integer/MAX_VALUE) "a positive number of bytes"]
   :max-header-bytes [(int-in 256 Integer/MAX_VALUE) "an integer >= 256"]
   :max-body-bytes [pos-int-or-nil "a positive integer, or nil for no limit"]
   :acceptors [#(or (nil? %) ((int-in 1 64) %)) "an integer from 1 to 64, or nil for Jetty's default"]
   :selectors [#(or (nil? %) ((int-in 1 256) %)) "an integer from 1 to 256, or nil for Jetty's default"]})

(defn- check-options [opts]
  (when-not (map? opts)
    (throw (ex-info (str "weft.ring/run-server: options must be a map, e.g. {:port 8080}; got " (pr-str opts))
                    {:options opts})))
  (doseq [k (keys opts)
          :when (and (keyword? k) (nil? (namespace k)) (not (contains? checks k)))]
    (throw (ex-info (str "weft.ring/run-server: unknown option " k "; the options are "
                         (apply str (interpose ", " (sort (keys checks)))))
                    {:option k})))
  (doseq [[k [valid? what]] checks
          :when (contains? opts k)
          :let [v (get opts k)]
          :when (not (valid? v))]
    (throw (ex-info (str "weft.ring/run-server: " k " must be " what "; got " (pr-str v))
                    {:option k :value v})))
  (when (and (contains? opts :max-queued) (nil? (:max-in-flight opts)))
    (throw (ex-info "weft.ring/run-server: :max-queued needs :max-in-flight (the queue is for requests beyond it)"
                    {:option :max-queued})))
  opts)

(defn- limiter ^Limiter [{:keys [max-in-flight max-queued queue-timeout-ms]}]
  (when max-in-flight
    (let [b (.maxWaiting (Limiter/builder "ring" (int max-in-flight)) (int (or max-queued max-in-flight)))]
      (when queue-timeout-ms
        (.maxWait b (Duration/ofMillis queue-timeout-ms)))
      (.build b))))

(declare stop-server)

(defrecord RingServer [port host ^Server jetty ^RingHandler handler]
  java.lang.AutoCloseable
  (close [this]
    (stop-server this)))

(defn run-server
  "Starts a Jetty server that serves the Ring handler `handler` and returns it, a map with
  `:port` (the port it listens on), `:host`, `:jetty` (the org.eclipse.jetty.server.Server,
  for what weft does not cover) and `:handler` (its dev.weft.ring.RingHandler). Every call
  of the handler runs on a virtual thread; the server is ready when this returns.

  Options (all optional):
    :port               port to listen on (default 8080; 0 picks a free port)
    :host               interface to listen on (default nil: every interface)
    :async?             call the handler's 3-arity form (request respond raise) (default false)
    :max-in-flight      most requests handled at once; nil (default) for no limit
    :max-queued         most requests waiting for a turn beyond :max-in-flight
                        (default: as many as :max-in-flight); more get 503 at once
    :queue-timeout-ms   longest a request waits for its turn, then 503 (default: no limit)
    :retry-after-s      Retry-After of those 503s, in seconds (default 1)
    :request-timeout-ms longest a request waits for its handler's response, counted from
                        its arrival; then it gets 503 and the handler thread is interrupted
                        (default: no limit)
    :backlog            listen backlog, Jetty's accept queue size (default 1024, enough for
                        1,000 simultaneous connects; the OS caps it at net.core.somaxconn)
    :idle-timeout-ms    close a connection idle this long (default 30000); a request whose
                        handler is still working is never cut by it
    :request-read-timeout  the longest a client may take to send a request's head, and the
                        body its handler is reading, counted from the request's first byte:
                        then 408 and the connection is closed (checked every quarter of it,
                        so the cut comes within 1.5 times it). A java.time.Duration or a
                        number of milliseconds (default 30000; nil: no deadline)
    :websocket-idle-timeout  close a WebSocket idle this long; a Duration or milliseconds
                        (default 30000)
    :websocket-max-message-bytes  largest WebSocket message; a larger one closes the socket
                        with 1009 (default 1 MiB)
    :max-header-bytes   largest request line and headers; more gets 431 (default 8192)
    :max-body-bytes     largest request body; more gets 413 (default 10 MiB; nil: no limit)
    :acceptors          acceptor threads (default: Jetty's, 1 below 16 cores)
    :selectors          selector threads (default: Jetty's, half the cores up to 4)

  Unknown unqualified keys are refused (a typo would silently change nothing);
  namespaced keys are ignored, so an application may keep its own settings in the map.
  Throws ex-info naming the option and what it must be, or naming the address when the
  port cannot be bound."
  [handler opts]
  (when-not (ifn? handler)
    (throw (ex-info (str "weft.ring/run-server: the handler must be a function of a request map; got "
                         (pr-str (type handler)))
                    {:handler handler})))
  (let [opts (merge defaults (check-options opts))
        {:keys [port host async? request-timeout-ms retry-after-s backlog idle-timeout-ms
                max-header-bytes max-body-bytes acceptors selectors request-read-timeout
                websocket-idle-timeout websocket-max-message-bytes]} opts
        pool (doto (QueuedThreadPool. (int jetty-threads) 4)
               (.setName "weft-ring-jetty"))
        server (Server. pool)
        ring-handler (RingHandler. handler (boolean async?) (limiter opts)
                                   (some-> request-timeout-ms Duration/ofMillis)
                                   (int retry-after-s) (long (or max-body-bytes -1))
                                   #'protocols/write-body-to-stream
                                   (->duration request-read-timeout))
        config (doto (HttpConfiguration.)
                 (.setRequestHeaderSize (int max-header-bytes))
                 (.setSendServerVersion false)
                 (.setSendXPoweredBy false))
        connector (doto (RingConnector. server (int (or acceptors -1)) (int (or selectors -1)) ring-handler
                                        ^"[Lorg.eclipse.jetty.server.ConnectionFactory;"
                                        (into-array ConnectionFactory [(HttpConnectionFactory. config)]))
                    (.setHost host)
                    (.setPort (int port))
                    (.setAcceptQueueSize (int backlog))
                    (.setIdleTimeout (long idle-timeout-ms)))]
    ;; Jetty reads, parses and handles each request on a new virtual thread of the handler's.
    (.setVirtualThreadsExecutor pool (.virtualThreads ring-handler))
    (.addConnector server connector)
    (.setHandler server ring-handler)
    (.enableWebSockets ring-handler server (websocket/listener-caller) (->duration websocket-idle-timeout)
                       (long websocket-max-message-bytes))
    (.setErrorHandler server (doto (ErrorHandler.)
                              (.setShowStacks false)
                              (.setShowCauses false)
                              (.setDefaultResponseMimeType "text/plain")))
    (try
      (.start server)
      (catch Exception e
        (try (.stop server) (catch Exception stop-failure (.addSuppressed e stop-failure)))
        (let [address (str (or host "0.0.0.0") ":" port)]
          (throw (if (some #(instance? java.net.BindException %) (take-while some? (iterate ex-cause e)))
                   (ex-info (str "weft.ring/run-server: cannot listen on " address ": " (ex-message e)
                                 "; choose another :port, or 0 for a free one")
                            {:host host :port port} e)
                   (ex-info (str "weft.ring/run-server: the server did not start on " address ": " (ex-message e))
                            {:host host :port port} e))))))
    (->RingServer (.getLocalPort connector) host server ring-handler)))

(defn stop-server
  "Stops `server` gracefully and returns true when every request in flight finished and
  its response was written.

  It stops accepting connections at once; requests arriving on connections still open get
  503 with Connection: close; the requests in flight get up to `:timeout-ms` to finish
  and be written (their connections stay open that long; idle connections close within a
  second), and each response written during the drain closes its connection. Then every
  connection is closed. Requests still in flight at that point are abandoned (their
  handler threads are interrupted), and the result is false. A response that could not be
  written during the drain (the client went away, say) is lost: the result is false too.
  `stats` tells which (`:abandoned`, `:lost`). Concurrent and repeated calls wait for the
  first to finish and return its result.

  Options:
    :timeout-ms  how long to wait for the requests in flight (default 30000; 0 abandons
                 them at once)"
  ([server] (stop-server server {}))
  ([server {:keys [timeout-ms] :or {timeout-ms 30000} :as opts}]
   (when-not (and (int? timeout-ms) (<= 0 timeout-ms))
     (throw (ex-info (str "weft.ring/stop-server: :timeout-ms must be an integer >= 0; got " (pr-str timeout-ms))
                     {:options opts})))
   (let [^Server jetty (:jetty server)
         ^RingHandler handler (:handler server)]
     (locking jetty
       (when-not (.isStopped jetty)
         (.setStopTimeout jetty (long timeout-ms))
         (try
           (.stop jetty)
           (catch Exception e
             ;; Jetty reports a drain that ran out of time as a TimeoutException once it has
             ;; stopped everything; what was cut off is counted below.
             (when-not (some #(instance? TimeoutException %) (take-while some? (iterate ex-cause e)))
               (throw e)))))
       (and (zero? (.abandoned handler)) (zero? (.lostInDrain handler)))))))

(defn stats
  "What `server` is doing now, as a map:
    :in-flight  requests let in and not yet finished (answered, and their handler returned)
    :waiting    requests waiting for a turn under :max-in-flight (0 without a limit)
    :rejected   requests answered 503 because the server was full, since it started
    :abandoned  requests cut off by the last stop (see `stop-server`)
    :lost       responses that could not be written since the server started (the client
                went away, its connection timed out or closed, or a streaming body failed
                after the status was sent); each is logged once at WARN
    :websockets WebSockets open now (see weft.ring.websocket)"
  [server]
  (let [^RingHandler handler (:handler server)
        ^Limiter limiter (.limiter handler)]
    {:in-flight (.inFlight handler)
     :waiting (if limiter (.waiting limiter) 0)
     :rejected (if limiter (.rejected limiter) 0)
     :abandoned (.abandoned handler)
     :lost (.lost handler)
     :websockets (.openWebSockets handler)}))
