(ns weft.ring.bad-input-test
  "Bad requests over raw sockets: each is answered with its status (or closed) without
  calling the handler, and none stalls the other clients."
  (:require [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [weft.ring.test-http :as http]
            [weft.ring.test-support :refer [with-server capture-log lines-containing]])
  (:import (java.net Socket)))

(set! *warn-on-reflection* true)

(defn- counting-handler
  "A handler that reads the body and counts its calls in `calls`."
  [calls]
  (fn [req]
    (swap! calls inc)
    {:status 200 :headers {} :body (str "read " (count (slurp (:body req))))}))

(def ^:private bad-requests
  "[what, request text, expected status]: all refused before the handler is called."
  [["a malformed request line" "GARBAGE\r\n\r\n" 400]
   ["an unknown HTTP version" "GET / HTTP/9.9\r\nHost: a\r\n\r\n" 505]
   ["headers over :max-header-bytes"
    (str "GET / HTTP/1.1\r\nHost: a\r\nX-Big: " (apply str (repeat 2000 "a")) "\r\n\r\n") 431]
   ["a Content-Length that is not a number" "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: abc\r\n\r\n" 400]
   ["a negative Content-Length" "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n" 400]
   ["two different Content-Lengths" "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!" 400]
   ["Content-Length with Transfer-Encoding (request smuggling)"
    "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" 400]
   ["an HTTP/1.1 request without Host" "GET / HTTP/1.1\r\n\r\n" 400]
   ["a declared body over :max-body-bytes"
    (str "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 500\r\n\r\n" (apply str (repeat 500 "a"))) 413]])

(deftest bad-requests-never-reach-the-handler
  (let [calls (atom 0)]
    (with-server [s (counting-handler calls) {:max-header-bytes 1024 :max-body-bytes 100}]
      (doseq [[what text status] bad-requests]
        (testing what
          (let [r (http/exchange (:port s) text)]
            (is (= status (:status r)))
            (is (not (str/includes? (:body r) "Exception")) "no stack trace or exception class goes to the client"))))
      (is (zero? @calls))
      (is (= "read 5" (:body (http/http (:port s) "POST" "/" :body "hello"))) "and the server still serves"))))

(deftest bad-bodies-the-handler-reads-are-the-clients-fault
  (let [calls (atom 0)
        [results log]
        (capture-log
         #(with-server [s (counting-handler calls) {:max-body-bytes 100 :idle-timeout-ms 300}]
            {:chunked-over-limit
             (http/exchange (:port s) (str "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
                                           (apply str (repeat 5 (str "32\r\n" (apply str (repeat 50 "a")) "\r\n")))
                                           "0\r\n\r\n"))
             :bad-chunk-size
             (http/exchange (:port s) "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\nabc\r\n0\r\n\r\n")
             :body-stops-halfway
             (http/exchange (:port s) "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 50\r\n\r\nabc")}))]
    (testing "a chunked body that grows past :max-body-bytes: 413"
      (is (= 413 (:status (:chunked-over-limit results)))))
    (testing "a malformed chunk: 400"
      (is (= 400 (:status (:bad-chunk-size results)))))
    (testing "a client that stops sending its body: 408 once the idle timeout passes"
      (is (= 408 (:status (:body-stops-halfway results)))))
    (is (every? #(= ["close"] (get-in % [:headers "connection"])) (vals results))
        "the connection is closed: what is left of the body cannot be trusted")
    (is (empty? (lines-containing log "ERROR")) "a client's mistake is not logged as a server error")))

(deftest slow-clients-hold-a-connection-not-a-thread
  (let [calls (atom 0)]
    (with-server [s (counting-handler calls) {:idle-timeout-ms 500}]
      (let [port (:port s)
            ;; 200 clients that send half a request line and stop, and 50 that send their
            ;; headers and half their body: none of them may stall the others.
            stalled-heads (doall (for [_ (range 200)] (doto (http/connect port) (http/send! "GET /slo"))))
            stalled-bodies (doall (for [_ (range 50)]
                                    (doto (http/connect port)
                                      (http/send! "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nab"))))]
        (try
          (testing "while they stall, other clients are served"
            (dotimes [i 20]
              (is (= "read 0" (:body (http/http port "GET" (str "/fast" i)))))))
          (testing "a stalled request line or header is closed after the idle timeout"
            (doseq [^Socket sock stalled-heads]
              (is (nil? (http/read-response sock)))))
          (testing "a stalled body: 408, then closed"
            (doseq [^Socket sock stalled-bodies]
              (is (= 408 (:status (http/read-response sock))))))
          (is (= 70 @calls) "only the complete heads reached the handler (20 fast, 50 stalled bodies)")
          (finally
            (doseq [^Socket sock (concat stalled-heads stalled-bodies)]
              (.close sock))))))))

(deftest request-read-deadline
  (testing "a client trickling its head one byte at a time gets 408 and a close"
    (with-server [s (fn [_] {:status 200 :headers {} :body "ok"}) {:request-read-timeout (java.time.Duration/ofMillis 400)}]
      (with-open [sock (http/connect (:port s))]
        (let [text (http/request-text "GET" "/trickle" :headers {"X-Long" (apply str (repeat 100 "a"))})
              answered (future (http/read-response sock))]
          (loop [[c & more] text]
            (when (and c (not (realized? answered)))
              (try (http/send! sock (str c)) (catch java.io.IOException _))
              (Thread/sleep 20)
              (recur more)))
          (let [r (deref answered 30000 :hung)]
            (is (= 408 (:status r)))
            (is (= ["close"] (get-in r [:headers "connection"]))))
          (is (http/closed? sock))))))
  (testing "a body that trickles while the handler reads it: 408 and a close"
    (let [calls (atom 0)]
      (with-server [s (fn [req] (swap! calls inc) (slurp (:body req)) {:status 200 :headers {} :body "read"})
                    {:request-read-timeout 400}]
        (with-open [sock (http/connect (:port s))]
          (http/send! sock "POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n")
          (let [answered (future (http/read-response sock))]
            (loop [i 0]
              (when (and (< i 1000) (not (realized? answered)))
                (try (http/send! sock "x") (catch java.io.IOException _))
                (Thread/sleep 20)
                (recur (inc i))))
            (let [r (deref answered 30000 :hung)]
              (is (= 408 (:status r)))
              (is (= ["close"] (get-in r [:headers "connection"]))))
            (is (= 1 @calls)))))))
  (testing "an idle kept-alive connection and a slow handler are not the client's delay"
    (with-server [s (fn [_] (Thread/sleep 700) {:status 200 :headers {} :body "ok"}) {:request-read-timeout 300}]
      (with-open [sock (http/connect (:port s))]
        (http/send! sock (http/request-text "GET" "/a"))
        (is (= 200 (:status (http/read-response sock))))
        (Thread/sleep 700)
        (http/send! sock (http/request-text "GET" "/b"))
        (is (= 200 (:status (http/read-response sock))))))))
