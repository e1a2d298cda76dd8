(ns weft.ring-test
  "Ring SPEC 1.5 over real HTTP: the request map, every response body type, asynchronous
  handlers, handler errors, options."
  (:require [clojure.java.io :as io]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [weft.ring :as ring]
            [weft.ring.protocols :as protocols]
            [weft.ring.test-http :as http]
            [weft.ring.test-support :refer [with-server capture-log occurrences lines-containing await!]])
  (:import (java.io ByteArrayInputStream File FilterInputStream InputStream)
           (java.nio.charset StandardCharsets)
           (java.util.concurrent CountDownLatch TimeUnit)))

(set! *warn-on-reflection* true)

(defn- capture-request
  "A handler that delivers the request map, its body read as a string, and the thread it
  ran on to `p`."
  [p]
  (fn [req]
    (let [body (slurp (:body req))]
      (deliver p (assoc req :body-text body :thread (Thread/currentThread)))
      {:status 200 :headers {} :body "ok"})))

(deftest request-map-follows-ring-spec
  (let [p (promise)]
    (with-server [s (capture-request p) {}]
      (let [res (http/exchange (:port s)
                               (str "POST /a/b%20c?x=1&y=%20 HTTP/1.1\r\n"
                                    "Host: localhost:" (:port s) "\r\n"
                                    "X-Multi: one\r\n"
                                    "X-Multi: two\r\n"
                                    "Cookie: a=1\r\n"
                                    "Cookie: b=2\r\n"
                                    "Content-Type: text/plain\r\n"
                                    "Content-Length: 5\r\n"
                                    "Connection: close\r\n\r\n"
                                    "hello"))
            req (deref p 10000 nil)]
        (is (= 200 (:status res)))
        (is (= "ok" (:body res)))
        (testing "every required key, with its SPEC type"
          (is (= (:port s) (:server-port req)))
          (is (instance? Integer (:server-port req)))
          (is (= "localhost" (:server-name req)))
          (is (= "127.0.0.1" (:remote-addr req)))
          (is (= "/a/b%20c" (:uri req)) "the raw path, as servlets give it")
          (is (= "x=1&y=%20" (:query-string req)))
          (is (= :http (:scheme req)))
          (is (= :post (:request-method req)))
          (is (= "HTTP/1.1" (:protocol req)))
          (is (instance? InputStream (:body req)))
          (is (= "hello" (:body-text req))))
        (testing "header names lowercased, repeated headers joined as the SPEC says"
          (is (= "one,two" (get-in req [:headers "x-multi"])))
          (is (= "a=1; b=2" (get-in req [:headers "cookie"])))
          (is (= "text/plain" (get-in req [:headers "content-type"])))
          (is (= "5" (get-in req [:headers "content-length"])))
          (is (every? #(= % (str/lower-case %)) (keys (:headers req)))))
        (testing "the handler ran on its own virtual thread"
          (let [^Thread t (:thread req)]
            (is (.isVirtual t))
            (is (str/starts-with? (.getName t) "weft-ring-"))))))))

(deftest request-map-details
  (testing "no query string, HTTP/1.0, an unusual method, a GET without a body"
    (let [p (promise)]
      (with-server [s (capture-request p) {}]
        (is (= 200 (:status (http/exchange (:port s) "PROPFIND /x HTTP/1.0\r\nHost: a\r\n\r\n"))))
        (let [req (deref p 10000 nil)]
          (is (nil? (:query-string req)))
          (is (= "HTTP/1.0" (:protocol req)))
          (is (= :propfind (:request-method req)))
          (is (= "" (:body-text req)))))))
  (testing "many headers, some repeated"
    (let [p (promise)]
      (with-server [s (capture-request p) {}]
        (http/http (:port s) "GET" "/" :headers (concat (for [i (range 40)] [(str "X-H" i) (str i)])
                                                         [["X-H3" "again"]]))
        (let [req (deref p 10000 nil)]
          (is (= "17" (get-in req [:headers "x-h17"])))
          (is (= "3,again" (get-in req [:headers "x-h3"]))))))))

(deftest connections-and-methods
  (let [threads (atom [])]
    (with-server [s (fn [req]
                      (swap! threads conj (Thread/currentThread))
                      {:status 200 :headers {"content-type" "text/plain"}
                       :body (str (name (:request-method req)) " " (slurp (:body req)))})
                  {}]
      (testing "a keep-alive connection serves request after request, each on a virtual thread"
        (with-open [sock (http/connect (:port s))]
          (doseq [i (range 3)]
            (http/send! sock (http/request-text "POST" "/" :body (str "n" i)))
            (is (= (str "post n" i) (:body (http/read-response sock)))))
          (is (= 3 (count @threads)))
          (is (every? #(.isVirtual ^Thread %) @threads))))
      (testing "HEAD: the headers of the GET, no body"
        (with-open [sock (http/connect (:port s))]
          (http/send! sock (http/request-text "HEAD" "/" :headers {"Connection" "close"}))
          (let [head (http/read-head sock)]
            (is (= 200 (:status head)))
            (is (= "text/plain" (http/header head "content-type")))
            (is (http/closed? sock) "nothing follows the head"))))
      (testing "Expect: 100-continue is answered when the handler reads the body"
        (with-open [sock (http/connect (:port s))]
          (http/send! sock (str "PUT / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n"
                                "Expect: 100-continue\r\nConnection: close\r\n\r\n"))
          (is (= 100 (:status (http/read-head sock))))
          (http/send! sock "hello")
          (is (= "put hello" (:body (http/read-response sock)))))))))

(deftest response-status-and-headers
  (with-server [s (fn [_] {:status 201
                           :headers {"X-One" "1"
                                     "Set-Cookie" ["a=1" "b=2"]
                                     "content-type" "text/plain"}
                           :body "made"})
                {}]
    (let [res (http/http (:port s) "GET" "/")]
      (is (= 201 (:status res)))
      (is (= ["1"] (get-in res [:headers "x-one"])))
      (is (= ["a=1" "b=2"] (get-in res [:headers "set-cookie"])) "a vector value sends the header once per value")
      (is (= "made" (:body res)))
      (is (= "4" (http/header res "content-length")) "String bodies are sent in one write, with a length")
      (is (nil? (http/header res "server")) "no server version is advertised"))))

(deftest every-body-type
  (let [file (doto (File/createTempFile "weft-ring" ".txt") (.deleteOnExit))
        closed (promise)
        _ (spit file "from a file")
        in (ByteArrayInputStream. (.getBytes "from a stream" StandardCharsets/UTF_8))
        stream (proxy [FilterInputStream] [in]
                 (close [] (deliver closed true) (.close in)))
        bodies {"/string" "from a string"
                "/bytes" (.getBytes "from bytes" StandardCharsets/UTF_8)
                "/seq" (map str ["from " "a " "seq"])
                "/file" file
                "/stream" stream
                "/nil" nil}]
    (with-server [s (fn [req] {:status 200 :headers {} :body (get bodies (:uri req))}) {}]
      (doseq [[path expected] {"/string" "from a string" "/bytes" "from bytes" "/seq" "from a seq"
                               "/file" "from a file" "/stream" "from a stream" "/nil" ""}]
        (testing path
          (let [res (http/http (:port s) "GET" path)]
            (is (= 200 (:status res)))
            (is (= expected (:body res))))))
      (is (true? (deref closed 10000 false)) "an InputStream body is closed once written"))))

(deftest string-body-uses-the-charset-of-its-content-type
  (with-server [s (fn [req] {:status 200
                             :headers {"Content-Type" (str "text/plain; charset=" (subs (:uri req) 1))}
                             :body "café"})
                {}]
    (is (= [99 97 102 -23] (vec (:bytes (http/http (:port s) "GET" "/ISO-8859-1")))))
    (is (= [99 97 102 -61 -87] (vec (:bytes (http/http (:port s) "GET" "/utf-8"))))))
  (testing "a lower-case name and a collection of values: the first value's charset"
    (with-server [s (fn [_] {:status 200
                             :headers {"x-other" "charset=utf-8"
                                       "content-type" ["text/plain; charset=ISO-8859-1" "text/html"]}
                             :body "café"})
                  {}]
      (is (= [99 97 102 -23] (vec (:bytes (http/http (:port s) "GET" "/"))))))))

(deftest a-kept-alive-connections-requests-each-see-their-client
  ;; An HTTP/1 connection keeps its client's :remote-addr and its :server-port for its next
  ;; requests (decision 0306): every request on it still gets both, and a thread of weft-ring's.
  (let [seen (java.util.concurrent.LinkedBlockingQueue.)]
    (with-server [s (fn [req]
                      (.put seen [(:remote-addr req) (:server-port req) (.getName (Thread/currentThread))])
                      {:status 200 :headers {} :body "ok"})
                  {}]
      (with-open [sock (http/connect (:port s))]
        (dotimes [_ 3]
          (http/send! sock (http/request-text "GET" "/"))
          (is (= 200 (:status (http/read-response sock))))))
      (let [rows (vec (repeatedly 3 #(.poll seen 10 TimeUnit/SECONDS)))]
        ;; The test client's Host header is "127.0.0.1" without a port: the scheme's, 80.
        (is (every? #(= ["127.0.0.1" 80] (subvec % 0 2)) rows))
        (is (every? #(instance? Integer (second %)) rows))
        (is (every? #(re-matches #"weft-ring-\d+" (nth % 2)) rows))))))

(deftest seq-body-is-flushed-element-by-element
  ;; The second element is produced only once the client has received the first: without
  ;; a flush per element the client would wait for ever (the socket's timeout guards it).
  (let [first-seen (CountDownLatch. 1)
        body (fn body [i]
               (lazy-seq
                (when (< i 3)
                  (when (pos? i) (.await first-seen 20 TimeUnit/SECONDS))
                  (cons (str "part" i) (body (inc i))))))]
    (with-server [s (fn [_] {:status 200 :headers {} :body (body 0)}) {}]
      (with-open [sock (http/connect (:port s))]
        (http/send! sock (http/request-text "GET" "/"))
        (let [head (http/read-head sock)]
          (is (= 200 (:status head)))
          (is (= "part0" (String. (http/read-chunk sock) StandardCharsets/UTF_8)))
          (.countDown first-seen)
          (is (= "part1" (String. (http/read-chunk sock) StandardCharsets/UTF_8)))
          (is (= "part2" (String. (http/read-chunk sock) StandardCharsets/UTF_8)))
          (is (nil? (http/read-chunk sock))))))))

(defrecord Greeting [who])

(extend-protocol protocols/StreamableResponseBody
  Greeting
  (write-body-to-stream [g _ out]
    (.write ^java.io.OutputStream out (.getBytes (str "hello, " (:who g)) StandardCharsets/UTF_8))))

(deftest response-body-protocol-is-open
  (with-server [s (fn [_] {:status 200 :headers {} :body (->Greeting "you")}) {}]
    (is (= "hello, you" (:body (http/http (:port s) "GET" "/"))))))

(deftest async-handlers
  (testing "respond from another (platform) thread"
    (with-server [s (fn [_req respond _raise]
                      (future (respond {:status 200 :headers {} :body (seq ["as" "ync"])})))
                  {:async? true}]
      (is (= "async" (:body (http/http (:port s) "GET" "/"))))))
  (testing "respond at once, on the handler's own virtual thread"
    (with-server [s (fn [_req respond _raise]
                      (respond {:status 200 :headers {} :body (str (.isVirtual (Thread/currentThread)))}))
                  {:async? true}]
      (is (= "true" (:body (http/http (:port s) "GET" "/"))))))
  (testing "raise answers 500 and logs the exception once"
    (let [[res log] (capture-log
                     #(with-server [s (fn [_req _respond raise] (future (raise (ex-info "async boom" {}))))
                                    {:async? true}]
                        (http/http (:port s) "GET" "/raise")))]
      (is (= 500 (:status res)))
      (is (not (str/includes? (:body res) "boom")))
      (is (= 1 (occurrences log "async boom")))))
  (testing "a second respond is dropped, with a warning"
    (let [[res log] (capture-log
                     #(let [second-done (promise)]
                        (with-server [s (fn [_req respond _raise]
                                          (respond {:status 200 :headers {} :body "first"})
                                          (respond {:status 200 :headers {} :body "second"})
                                          (deliver second-done true))
                                      {:async? true}]
                          (let [res (http/http (:port s) "GET" "/twice")]
                            (deref second-done 10000 nil)
                            res))))]
      (is (= "first" (:body res)))
      (is (= 1 (count (lines-containing log "answered more than once")))))))

(defn- broken-seq
  "An unchunked lazy seq whose third element throws."
  [i]
  (lazy-seq (if (< i 2) (cons (str i) (broken-seq (inc i))) (throw (ex-info "seq broke" {})))))

(deftest handler-exceptions
  (let [calls (atom 0)
        handler (fn [req]
                  (swap! calls inc)
                  (case (:uri req)
                    "/boom" (throw (IllegalStateException. "secret detail"))
                    "/nil" nil
                    "/bad-status" {:status "200" :headers {} :body "x"}
                    "/bad-header" {:status 200 :headers {"x-n" 42} :body "x"}
                    "/bad-body" {:status 200 :headers {} :body 42}
                    "/broken-seq" {:status 200 :headers {} :body (broken-seq 0)}
                    {:status 200 :headers {} :body "fine"}))]
    (with-server [s handler {}]
      (testing "an exception becomes a 500 without detail, logged once, and the server keeps serving"
        (let [[res log] (capture-log #(http/http (:port s) "GET" "/boom"))]
          (is (= 500 (:status res)))
          (is (= "Internal Server Error\n" (:body res)))
          (is (not (str/includes? (str res) "secret detail")))
          (is (= 1 (occurrences log "java.lang.IllegalStateException: secret detail")))
          (is (= 1 (count (lines-containing log "GET /boom: the handler failed; answered 500")))))
        (is (= "fine" (:body (http/http (:port s) "GET" "/after")))))
      (testing "an invalid response is a 500 whose log line names the problem and the fix"
        (doseq [[path message] {"/nil" "the handler returned nil; a Ring handler must return a response map"
                                "/bad-status" ":status is \"200\" (a java.lang.String); it must be an integer from 100 to 599"
                                "/bad-header" "\"x-n\" has the value 42 (a java.lang.Long); a header value must be a string"
                                "/bad-body" "the response :body is a java.lang.Long, which weft.ring cannot write"}]
          (let [[res log] (capture-log #(http/http (:port s) "GET" path))]
            (is (= 500 (:status res)) path)
            (is (= 1 (occurrences log message)) path))))
      (testing "a body that fails after the status was sent closes the connection, logged once"
        (let [[res log] (capture-log #(with-open [sock (http/connect (:port s))]
                                         (http/send! sock (http/request-text "GET" "/broken-seq"))
                                         (let [head (http/read-head sock)]
                                           (try (http/read-body sock head) (catch Exception e e))
                                           head)))]
          (is (= 200 (:status res)))
          (is (= 1 (occurrences log "seq broke")))))
      (is (= "fine" (:body (http/http (:port s) "GET" "/still-fine")))))))

(deftest options-are-checked
  (let [msg (fn [opts] (try (ring/stop-server! (ring/run-server identity opts)) nil
                            (catch dev.weft.clj.InvalidOptionException e (ex-message e))))]
    (is (= "weft.ring/run-server: :port must be an integer from 0 to 65535 (0 picks a free port); got \"80\""
           (msg {:port "80"})))
    (is (str/starts-with? (msg {:port 0 :max-inflight 10})
                          "weft.ring/run-server: unknown option :max-inflight"))
    (is (str/includes? (msg {:port 0 :max-waiting 3}) ":max-waiting needs :max-concurrency"))
    (is (str/includes? (msg {:port 0 :max-queued 3}) ":max-waiting needs :max-concurrency")
        "a deprecated name is checked under its new one")
    (testing ":max-wait without a cap to wait under would do nothing: an error, naming the fix"
      (is (= (str "weft.ring/run-server: :max-wait needs :max-concurrency (the wait is for a turn"
                  " under it; without it no request waits, so it would do nothing): add :max-concurrency"
                  " (or give a :limiter with its own waiting rules), or leave :max-wait out")
             (msg {:port 0 :max-wait 100})))
      (is (str/includes? (msg {:port 0 :max-wait (java.time.Duration/ofSeconds 1)}) ":max-wait needs"))
      (is (str/ends-with? (msg {:port 0 :queue-timeout-ms 100})
                          (str ":max-wait needs :max-concurrency (the wait is for a turn under it;"
                               " without it no request waits, so it would do nothing; :queue-timeout-ms is the"
                               " deprecated name of :max-wait): add :max-concurrency (or give a :limiter with its"
                               " own waiting rules), or leave :queue-timeout-ms out"))
          "the deprecated name the caller wrote is the one named")
      (is (str/ends-with? (msg {:port 0 :max-queued 3 :max-wait 100})
                          (str ":max-waiting and :max-wait need :max-concurrency (the wait is for a turn"
                               " under it; without it no request waits, so they would do nothing; :max-queued is"
                               " the deprecated name of :max-waiting): add :max-concurrency (or give a :limiter"
                               " with its own waiting rules), or leave :max-queued and :max-wait out"))
          "both given: both are named")
      (is (= {:weft/error :weft/invalid-option :fn "weft.ring/run-server" :option :max-wait
              :options {:port 0 :max-wait 100}}
             (try (ring/run-server identity {:port 0 :max-wait 100}) nil
                  (catch dev.weft.clj.InvalidOptionException e (ex-data e)))))
      (is (nil? (msg {:port 0 :host "127.0.0.1" :max-wait nil})) "nil is not given, as for every option")
      (is (nil? (msg {:port 0 :host "127.0.0.1" :max-concurrency 2 :max-wait 100})))
      (is (nil? (msg {:port 0 :host "127.0.0.1" :max-in-flight 2 :queue-timeout-ms 100})))
      (is (nil? (msg {:port 0 :host "127.0.0.1" :limit (reify dev.weft.limit.AdaptiveLimit
                                                          (limit [_] 4)
                                                          (onSample [_ _ _ _ _]))
                      :max-wait 100}))))
    (is (str/includes? (msg {:port 0 :max-concurrency 0}) ":max-concurrency must be a positive integer"))
    (is (str/includes? (msg {:port 0 :max-in-flight 0}) ":max-concurrency must be a positive integer"))
    (is (str/includes? (msg {:port 0 :max-in-flight 1 :max-concurrency 1}) "both :max-in-flight and :max-concurrency"))
    (is (str/includes? (msg {:port 0 :backlog -1}) ":backlog must be a positive integer"))
    (is (str/includes? (msg {:port 0 :idle-timeout -5}) ":idle-timeout must be a positive number of milliseconds"))
    (is (str/includes? (msg {:port 0 :ssl-port 0}) ":ssl-port needs a key and certificate"))
    (is (str/includes? (msg {:port 0 :keystore "k.p12"}) "without :ssl-port"))
    (is (str/includes? (msg 8080) "options must be a map"))
    (is (nil? (msg {:port 0 :host "127.0.0.1" :my.app/setting 1})) "namespaced keys are the application's"))
  (testing "stop-server!'s options are checked too"
    (with-server [s (fn [_] {:status 200}) {}]
      (is (thrown-with-msg? dev.weft.clj.InvalidOptionException #":timeout must be"
                            (ring/stop-server! s {:timeout -1})))))
  (testing "stop-server, the deprecated name of stop-server!, still stops, and warns once"
    (swap! @#'weft.impl.options/warned disj ["weft.ring/stop-server"]) ; as in a fresh JVM
    (let [err (java.io.StringWriter.)
          results (binding [*err* err]
                    (vec (for [_ (range 2)]
                           (ring/stop-server (ring/run-server (fn [_] {:status 200}) {:port 0 :host "127.0.0.1"})))))]
      (is (= [true true] results))
      (is (= 1 (count (re-seq #"WARNING: weft.ring/stop-server is deprecated .* use weft.ring/stop-server!" (str err))))
          (str err))))
  (testing "deprecated names still work: durations in ms, Retry-After in seconds"
    ;; The handlers sleep 20 s, not just past the 50 ms timeout: on a loaded machine a timer can
    ;; fire hundreds of ms late. The timeout interrupts them; without it they would answer 200.
    (with-server [s (fn [_] (Thread/sleep 20000) {:status 200 :headers {} :body "late"})
                  {:request-timeout-ms 50 :retry-after-s 3 :idle-timeout-ms 5000}]
      (let [r (http/http (:port s) "GET" "/")]
        (is (= 503 (:status r)) "the request timeout of 50 ms applied")))
    (with-server [s (fn [_] (Thread/sleep 20000) {:status 200 :headers {} :body "late"})
                  {:request-timeout (java.time.Duration/ofMillis 50)}]
      (is (= 503 (:status (http/http (:port s) "GET" "/"))) "and the new name takes a Duration")))
  (is (thrown-with-msg? clojure.lang.ExceptionInfo #"the handler must be a function"
                        (ring/run-server "not a fn" {:port 0})))
  (testing "a port in use is named, with the fix"
    (with-server [s (fn [_] {:status 200}) {}]
      (let [e (try (ring/run-server identity {:port (:port s) :host "127.0.0.1"}) nil
                   (catch clojure.lang.ExceptionInfo e e))]
        (is (str/includes? (ex-message e) (str "cannot listen on 127.0.0.1:" (:port s))))
        (is (str/includes? (ex-message e) "choose another :port, or 0 for a free one"))))))

(deftest server-value-and-defaults
  (let [s (ring/run-server (fn [_] {:status 204}) {:port 0 :host "127.0.0.1"})]
    (try
      (is (pos? (:port s)) "port 0 picked a free port, and the value tells which")
      (is (= 204 (:status (http/http (:port s) "GET" "/"))))
      (let [^org.eclipse.jetty.server.ServerConnector c (first (.getConnectors ^org.eclipse.jetty.server.Server (:jetty s)))]
        (is (= 1024 (.getAcceptQueueSize c)) "a backlog large enough for 1,000 simultaneous connects"))
      ;; The client may read the response before the handler's thread has returned.
      (await! #(zero? (:in-flight (ring/stats s))))
      (is (= {:in-flight 0 :waiting 0 :admitted 1 :shed 0 :rejected 0 :dropped 0 :abandoned 0 :lost 0 :websockets 0}
             (ring/stats s)))
      (finally
        (.close ^java.lang.AutoCloseable s))))
  (testing "the value is a map of the documented keys; no constructor of it is in weft.ring's API"
    (with-server [s (fn [_] {:status 204}) {}]
      (is (map? s))
      (is (= #{:port :ssl-port :host :jetty :handler :tls} (set (keys s))))
      (is (instance? java.lang.AutoCloseable s))
      (is (str/starts-with? (pr-str s) "#weft.ring.impl.server.RingServer{:port "))
      (is (= '#{run-server stop-server! stop-server reload-ssl! stats} (set (keys (ns-publics 'weft.ring))))
          "a server comes only from run-server")))
  (testing "with-open stops it"
    (let [port (with-open [^java.lang.AutoCloseable s (ring/run-server (fn [_] {:status 200}) {:port 0 :host "127.0.0.1"})]
                 (:port s))]
      (is (thrown? java.net.ConnectException (http/connect port))))))
