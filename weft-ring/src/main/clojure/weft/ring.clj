(ns weft.ring
  "A Ring server on Jetty 12 that calls every handler on its own virtual thread.

      (require '[weft.ring :as ring])
      (def server (ring/run-server (fn [req] {:status 200 :body \"hello\"}) {:port 8080}))
      (ring/stop-server! server)  ; drains: in-flight requests finish first

  - `run-server` starts a server and returns it at once; `(:port server)` is the port
    it listens on (useful with `:port 0`, which picks a free one).
  - `stop-server!` drains: it stops accepting, lets the requests in flight finish within a
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
  request is answered with that status and Connection: close). Clients idle longer than `:idle-timeout` are closed; slow
  or stuck clients hold a connection, never a thread, so they do not stall the others."
  (:require [weft.impl.clojure-version]   ; first: on a Clojure older than weft supports, this fails naming the fix
            [clojure.string :as str]
            [weft.impl :as impl]
            [weft.impl.options :as options]
            [weft.ring.impl.server :as server-impl]
            [weft.ring.impl.websocket :as websocket]
            [weft.ring.protocols :as protocols])
  (:import (dev.weft.limit AdaptiveLimit Limiter)
           (dev.weft.ring RingConnector RingHandler Tls)
           (java.nio.file Path)
           (org.eclipse.jetty.alpn.server ALPNServerConnectionFactory)
           (java.time Duration)
           (org.eclipse.jetty.server ConnectionFactory HttpConfiguration
                                     SecureRequestCustomizer Server SslConnectionFactory)
           (org.eclipse.jetty.server.handler ErrorHandler)
           (org.eclipse.jetty.util.thread QueuedThreadPool)))

(set! *warn-on-reflection* true)

(def ^:private jetty-threads
  "Jetty's own pool of platform threads: acceptors and selectors (at most 8 with Jetty's
  defaults) and the callbacks of finished writes. Requests never run on it."
  16)

(defn- pos-duration?
  [x]
  (and (options/duration? x) (pos? (if (instance? Duration x) (.toNanos ^Duration x) (double x)))))

(def ^:private pos-duration
  {:valid? pos-duration?
   :must-be "a positive number of milliseconds or a positive java.time.Duration"
   :coerce #(impl/duration "duration" %)
   :unit "ms or a java.time.Duration"})

(defn- int-in [lo hi what]
  {:valid? #(and (integer? %) (<= lo % hi)) :must-be what :coerce int})

(def ^:private server-options
  (options/spec
   "weft.ring/run-server"
   [{:key :port :doc "port to listen on; 0 picks a free one, (:port server) tells which" :default 8080
     :nilable? false :valid? #(and (integer? %) (<= 0 % 65535)) :must-be "an integer from 0 to 65535 (0 picks a free port)"}
    {:key :host :type :string :doc "interface to listen on, e.g. \"127.0.0.1\"" :default-doc "every interface"}
    {:key :async? :type :boolean :doc "call the handler's 3-arity form (request respond raise)" :default false}
    {:key :max-concurrency :type :pos-int :aliases [:max-in-flight]
     :doc "most requests handled at once; more wait for a turn (see :max-waiting)" :default-doc "no cap"}
    (merge (options/instance-of AdaptiveLimit "a dev.weft.limit.AdaptiveLimit, e.g. (weft.concurrency-limits/vegas {}) from weft-concurrency-limits")
           {:key :limit
            :doc "an adaptive limit on requests handled at once, instead of a fixed :max-concurrency: it learns from each request's latency (from its turn to its response written) how many the handler bears; more wait (see :max-waiting) or get 503 with Retry-After; (:limit (stats server)) is its current value"
            :default-doc "none"})
    {:key :max-waiting :type :nat-int :aliases [:max-queued]
     :doc "most requests waiting for a turn beyond :max-concurrency or :limit (it needs one of them); more get 503 at once"
     :default-doc "as many as :max-concurrency; 0 under :limit (shed at once)"}
    (merge pos-duration {:key :max-wait :aliases [:queue-timeout-ms]
                         :doc "longest a request waits for its turn under :max-concurrency or :limit (it needs one of them), then 503" :default-doc "as long as it takes"})
    {:key :retry-after :type :duration :aliases {:retry-after-s #(* 1000 %)}
     :doc "Retry-After of the 503s sent when the server is full or stopping, sent in whole seconds rounded up"
     :default 1000}
    (merge pos-duration {:key :request-timeout :aliases [:request-timeout-ms]
                         :doc "longest a request waits for its handler's response, counted from its arrival; then 503, and the handler thread is interrupted"
                         :default-doc "none"})
    (merge (int-in 1 Integer/MAX_VALUE "a positive integer (the OS caps it at net.core.somaxconn)")
           {:key :backlog :default 1024
            :doc "listen backlog, Jetty's accept queue (1024 is enough for 1,000 simultaneous connects)"})
    (merge pos-duration {:key :idle-timeout :aliases [:idle-timeout-ms] :default 30000
                         :doc "close a connection idle this long; a request whose handler is still working is never cut by it"})
    (merge pos-duration {:key :request-read-timeout :default 30000
                         :doc "longest a client may take to send a request's head, and a body its handler is reading, counted from the request's first byte; then 408 and a close (checked every quarter of it, so the cut comes within 1.5 times it)"
                         :nil "none: a client may take as long as it likes"})
    (merge (int-in 256 Integer/MAX_VALUE "an integer, 256 or more")
           {:key :max-header-bytes :default 8192 :doc "largest request line and headers; more gets 431"})
    (merge (int-in 1 Integer/MAX_VALUE "a positive integer")
           {:key :max-body-bytes :default (* 10 1024 1024) :default-doc "10 MiB" :nil "no limit"
            :doc "largest request body; more gets 413"})
    (merge (int-in 1 64 "an integer from 1 to 64") {:key :acceptors :doc "acceptor threads" :default-doc "Jetty's (1 below 16 cores)"})
    (merge (int-in 1 256 "an integer from 1 to 256") {:key :selectors :doc "selector threads" :default-doc "Jetty's (half the cores, up to 4)"})
    (merge pos-duration {:key :websocket-idle-timeout :default 30000 :doc "close a WebSocket idle this long"})
    (merge (int-in 1 Integer/MAX_VALUE "a positive number of bytes")
           {:key :websocket-max-message-bytes :default (* 1024 1024)
            :doc "largest WebSocket message; a larger one closes the socket with 1009"})
    {:key :ssl-port :valid? #(and (integer? %) (<= 0 % 65535)) :must-be "an integer from 0 to 65535 (0 picks a free port)"
     :doc "also serve TLS (1.3 and 1.2 only) on this port, with :keystore or :ssl-cert and :ssl-key; (:ssl-port server) tells which"
     :default-doc "no TLS"}
    {:key :keystore :type :string :doc "path of the key store (PKCS12 or JKS) holding the TLS key and certificate"}
    {:key :keystore-type :type :string :doc "type of :keystore" :default "PKCS12"}
    {:key :keystore-password :type :string :doc "password of :keystore"}
    {:key :key-password :type :string :doc "password of the key in :keystore, when it differs from the store's"}
    {:key :ssl-cert :type :string :doc "path of a PEM certificate chain (instead of :keystore)"}
    {:key :ssl-key :type :string :doc "path of the unencrypted PKCS#8 PEM private key that goes with :ssl-cert"}
    {:key :http2? :type :boolean :default false
     :doc "also speak HTTP/2: h2 over TLS (ALPN) on :ssl-port and h2c (prior knowledge or Upgrade) on :port"}]
   {:exclusive [[:keystore :ssl-cert "a key store, or PEM files"]
                [:max-concurrency :limit "a fixed cap, or an adaptive one"]]
    :example "{:port 8080}"}))

(defn- check-waiting-has-a-cap
  "Throws when an option about waiting for a turn (:max-waiting, :max-wait) was given without
  :max-concurrency or :limit: with no cap, no request ever waits, so the option would
  silently do nothing. `given` is the map as the caller wrote it (to name a deprecated name
  they used), `checked` what `options/check` made of it (nil values left out; neither option
  has a default, so only what the caller gave counts)."
  [given checked]
  (when-not (or (:max-concurrency checked) (:limit checked))
    (when-let [ks (seq (filter #(contains? checked %) [:max-waiting :max-wait]))]
      (let [old-name (fn [k] (some (fn [[old [new]]] (when (and (= new k) (some? (get given old))) old))
                                   (:aliases server-options)))
            one? (not (next ks))]
        (throw (options/error "weft.ring/run-server"
                              (str (str/join " and " ks) (if one? " needs" " need") " :max-concurrency or :limit"
                                   " (the wait is for a turn under one; without one no request waits, so "
                                   (if one? "it" "they") " would do nothing"
                                   (apply str (for [k ks :let [old (old-name k)] :when old]
                                                (str "; " old " is the deprecated name of " k)))
                                   "): add :max-concurrency or :limit, or leave "
                                   (str/join " and " (map #(or (old-name %) %) ks)) " out")
                              {:option (first ks) :options given}))))))

(defn- limiter ^Limiter [{:keys [max-concurrency limit max-waiting max-wait]}]
  (when (or max-concurrency limit)
    (let [b (if limit
              (.maxWaiting (Limiter/builder "ring" ^AdaptiveLimit limit) (int (or max-waiting 0)))
              (.maxWaiting (Limiter/builder "ring" (int max-concurrency)) (int (or max-waiting max-concurrency))))]
      (when max-wait
        (.maxWait b ^Duration max-wait))
      (.build b))))

(defn- retry-after-seconds
  "Whole seconds, rounded up: Retry-After has no fractions."
  [^Duration d]
  (int (Math/ceil (/ (.toNanos d) 1e9))))

(defn- path ^Path [^String p] (Path/of p (make-array String 0)))

(defn- tls ^Tls [{:keys [ssl-port keystore keystore-type keystore-password key-password ssl-cert ssl-key]}]
  (let [fail #(throw (options/error "weft.ring/run-server" % {:option :ssl-port}))]
    (cond
      (and (nil? ssl-port) (or keystore ssl-cert ssl-key))
      (fail "TLS files were given without :ssl-port; add :ssl-port (e.g. 8443) to serve TLS")
      (nil? ssl-port) nil
      keystore (Tls/keyStore (path keystore) keystore-type keystore-password key-password)
      (and ssl-cert ssl-key) (Tls/pem (path ssl-cert) (path ssl-key))
      :else (fail ":ssl-port needs a key and certificate: :keystore (with :keystore-password), or :ssl-cert and :ssl-key (PEM files)"))))

(defn- factories
  "The connection factories of a connector, outermost first."
  [^HttpConfiguration config http2? ^Tls tls]
  (let [http1 (RingConnector/http1 config)]
    (cond
      (and tls http2?) [(SslConnectionFactory. (.contextFactory tls) "alpn")
                        (doto (ALPNServerConnectionFactory. ^"[Ljava.lang.String;" (into-array String ["h2" "http/1.1"]))
                          (.setDefaultProtocol "http/1.1"))
                        (RingConnector/h2 config)
                        http1]
      tls [(SslConnectionFactory. (.contextFactory tls) "http/1.1") http1]
      http2? [http1 (RingConnector/h2c config)]
      :else [http1])))

(defn- connector ^RingConnector [^Server server ^RingHandler handler {:keys [host backlog ^Duration idle-timeout acceptors selectors]}
                                 port factories]
  (doto (RingConnector. server (int (or acceptors -1)) (int (or selectors -1)) handler
                        ^"[Lorg.eclipse.jetty.server.ConnectionFactory;" (into-array ConnectionFactory factories))
    (.setHost host)
    (.setPort (int port))
    (.setAcceptQueueSize (int backlog))
    (.setIdleTimeout (.toMillis idle-timeout))))

(defn run-server
  "Starts a Jetty server that serves the Ring handler `handler` and returns it, a map with
  `:port` (the port it listens on), `:ssl-port` (the TLS port, or nil), `:host`, `:jetty`
  (the org.eclipse.jetty.server.Server, for what weft does not cover), `:handler` (its
  dev.weft.ring.RingHandler) and, with an adaptive limit, `:limit` (the AdaptiveLimit). Every call of the handler runs on a virtual thread (with
  HTTP/2, every stream's); the server is ready when this returns.

  TLS: `:ssl-port` with `:keystore` (and `:keystore-password`) or `:ssl-cert` and `:ssl-key`
  (PEM) serves TLS 1.3 and 1.2 next to the plain port; `reload-ssl!` swaps in a renewed
  certificate without a restart. HTTP/2: `:http2? true` adds h2 (ALPN) on the TLS port and
  h2c on the plain one; requests then say `:protocol \"HTTP/2\"`.

  Limits: `:max-concurrency` caps the requests handled at once at a fixed number; `:limit`
  takes an adaptive limit instead (a dev.weft.limit.AdaptiveLimit, e.g.
  `(weft.concurrency-limits/vegas {})` from weft-concurrency-limits), which learns from each
  request's latency how many the handler bears. Either way, requests beyond it wait for a
  turn (`:max-waiting`, `:max-wait`; none by default under `:limit`) or are shed with 503
  and Retry-After. Under `:limit`, a request that times out (`:request-timeout`) counts as a
  drop; a handler that throws, a bad body or a stop counts as nothing.

  Unknown unqualified keys are refused (a typo would silently change nothing);
  namespaced keys are ignored, so an application may keep its own settings in the map.
  A bad option throws dev.weft.clj.InvalidOptionException naming it and what it must be;
  a port that cannot be bound throws ex-info naming the address."
  [handler opts]
  (when-not (ifn? handler)
    (throw (ex-info (str "weft.ring/run-server: the handler must be a function of a request map; got "
                         (pr-str (type handler)))
                    {:handler handler})))
  (let [given opts
        opts (options/check server-options given)
        _ (check-waiting-has-a-cap given opts)
        {:keys [port ssl-port host async? request-timeout retry-after max-header-bytes max-body-bytes
                request-read-timeout websocket-idle-timeout websocket-max-message-bytes http2?]} opts
        tls (tls opts)
        pool (doto (QueuedThreadPool. (int jetty-threads) 4)
               (.setName "weft-ring-jetty"))
        server (Server. pool)
        ring-handler (RingHandler. handler (boolean async?) (limiter opts) request-timeout
                                   (retry-after-seconds retry-after) (long (or max-body-bytes -1))
                                   #'protocols/write-body-to-stream request-read-timeout)
        config (doto (HttpConfiguration.)
                 (.setRequestHeaderSize (int max-header-bytes))
                 (.setSendServerVersion false)
                 (.setSendXPoweredBy false))
        plain (connector server ring-handler opts port (factories config http2? nil))
        secure (when tls
                 (let [https (doto (HttpConfiguration. config)
                               ;; :scheme :https; no SNI check: a client may reach the server by IP.
                               (.addCustomizer (SecureRequestCustomizer. false false -1 false)))]
                   (connector server ring-handler opts ssl-port (factories https http2? tls))))]
    ;; Jetty reads, parses and handles each request on a new virtual thread of the handler's.
    (.setVirtualThreadsExecutor pool (.virtualThreads ring-handler))
    (.addConnector server plain)
    (when secure (.addConnector server secure))
    (.setHandler server ring-handler)
    (.enableWebSockets ring-handler server (websocket/listener-caller) websocket-idle-timeout
                       (long websocket-max-message-bytes))
    (.setErrorHandler server (doto (ErrorHandler.)
                              (.setShowStacks false)
                              (.setShowCauses false)
                              (.setDefaultResponseMimeType "text/plain")))
    (try
      (.start server)
      (catch Exception e
        (try (.stop server) (catch Exception stop-failure (.addSuppressed e stop-failure)))
        (let [address (str (or host "0.0.0.0") ":" port (when ssl-port (str " and " ssl-port " (TLS)")))]
          (throw (if (some #(instance? java.net.BindException %) (take-while some? (iterate ex-cause e)))
                   (ex-info (str "weft.ring/run-server: cannot listen on " address ": " (ex-message e)
                                 "; choose another :port, or 0 for a free one")
                            {:host host :port port :ssl-port ssl-port} e)
                   (ex-info (str "weft.ring/run-server: the server did not start on " address ": " (ex-message e))
                            {:host host :port port :ssl-port ssl-port} e))))))
    (cond-> (server-impl/->RingServer (.getLocalPort plain) (some-> secure .getLocalPort) host server ring-handler tls)
      (:limit opts) (assoc :limit (:limit opts)))))

(options/document! #'run-server server-options)

(defn stop-server!
  "Stops `server` gracefully and returns true when every request in flight finished and
  its response was written.

  It stops accepting connections at once; requests arriving on connections still open get
  503 with Connection: close; the requests in flight get up to `:timeout` to finish and be
  written (their connections stay open that long; idle connections close within a second),
  and each response written during the drain closes its connection. Open WebSockets are
  closed with 1001. Then every connection is closed. Requests still in flight at that point
  are abandoned (their handler threads are interrupted), and the result is false. A
  response that could not be written during the drain (the client went away, say) is lost:
  the result is false too. `stats` tells which (`:abandoned`, `:lost`). Concurrent and
  repeated calls wait for the first to finish and return its result. Closing the server
  (`with-open`) is `(stop-server! server)`."
  ([server] (stop-server! server {}))
  ([server opts]
   (server-impl/stop! server (:timeout (options/check server-impl/stop-options opts)))))

(options/document! #'stop-server! server-impl/stop-options)

(defn stop-server
  "Deprecated: the old name of `stop-server!` (a side effect's name ends in `!`), kept through this
  release. Prints a one-time warning, then does what `stop-server!` does."
  {:deprecated "0.1.0"}
  ([server] (stop-server server {}))
  ([server opts]
   (options/warn-deprecated-fn! "weft.ring/stop-server" "weft.ring/stop-server!")
   (stop-server! server opts)))

(defn reload-ssl!
  "Reads the TLS key and certificate of `server` again, from the :keystore or the :ssl-cert
  and :ssl-key files it was started with, and uses them for every new TLS handshake: a
  renewed certificate without a restart. Connections already open keep theirs; no request
  fails. Returns true. Throws (and the server keeps its current certificate) when the files
  cannot be read, or when the server has no TLS."
  [server]
  (let [^Tls tls (:tls server)]
    (when-not tls
      (throw (ex-info "weft.ring/reload-ssl!: this server has no TLS; start it with :ssl-port and a key" {})))
    (.reload tls)
    true))

(defn stats
  "What `server` is doing now, as a map:
    :in-flight  requests let in and not yet finished (answered, and their handler returned)
    :waiting    requests waiting for a turn under :max-concurrency or :limit (0 without one)
    :limit      the adaptive limit's current value (only with :limit)
    :rejected   requests answered 503 because the server was full, since it started
    :abandoned  requests cut off by the last stop (see `stop-server!`)
    :lost       responses that could not be written since the server started (the client
                went away, its connection timed out or closed, or a streaming body failed
                after the status was sent); each is logged once at WARN
    :websockets WebSockets open now (see weft.ring.websocket)"
  [server]
  (let [^RingHandler handler (:handler server)
        ^Limiter limiter (.limiter handler)]
    (cond-> {:in-flight (.inFlight handler)
             :waiting (if limiter (.waiting limiter) 0)
             :rejected (if limiter (.rejected limiter) 0)
             :abandoned (.abandoned handler)
             :lost (.lost handler)
             :websockets (.openWebSockets handler)}
      (:limit server) (assoc :limit (.permits limiter)))))
