(ns weft.ring.websocket-test
  "WebSockets over real connections on 127.0.0.1, with the JDK's WebSocket client."
  (:require [clojure.test :refer [deftest is testing]]
            [ring.websocket.protocols :as rp]
            [weft.ring :as ring]
            [weft.ring.test-http :as http]
            [weft.ring.test-support :refer [with-server await!]]
            [weft.ring.test-ws :as ws]
            [weft.ring.websocket :as wws])
  (:import (java.nio ByteBuffer)
           (java.util.concurrent CountDownLatch ExecutorService Executors Future TimeUnit)
           (java.util.concurrent.atomic AtomicInteger)))

(set! *warn-on-reflection* true)

(defn- bytes-of ^bytes [^ByteBuffer b]
  (let [a (byte-array (.remaining b))] (.get (.duplicate b) a) a))

(defn- echo-handler
  "Echoes every message back; says hello on open; records each socket's close."
  [closes]
  (fn [req]
    (if (wws/upgrade-request? req)
      {:ring.websocket/listener
       {:on-open (fn [socket] (wws/send socket "hello"))
        :on-message (fn [socket message]
                      (if (string? message)
                        (wws/send socket (str "echo " message))
                        (wws/send socket (bytes-of message))))
        :on-pong (fn [socket data] (wws/send socket (str "pong " (.remaining ^ByteBuffer data))))
        :on-close (fn [_ code reason] (swap! closes conj [code reason]))}}
      {:status 200 :headers {} :body "not a websocket"})))

(deftest echo-text-binary-ping-and-close-codes
  (let [closes (atom [])]
    (with-server [s (echo-handler closes) {}]
      (let [c (ws/connect (:port s) "/echo")]
        (is (= "hello" (ws/take! c)) "on-open ran and sent")
        (ws/send-text! c "one")
        (is (= "echo one" (ws/take! c)))
        (ws/send-binary! c (byte-array [1 2 3]))
        (is (= [1 2 3] (vec (ws/take! c))))
        (ws/ping! c)
        (is (= [:pong 3] (ws/take! c)) "the server answered the ping itself")
        (await! #(= 1 (:websockets (ring/stats s))))
        (ws/close! c 4000 "bye")
        (is (= [4000 "bye"] (deref (:closed c) 10000 :hung)) "the close handshake completed")
        (await! #(= [[4000 "bye"]] @closes))
        (await! #(zero? (:websockets (ring/stats s))))))))

(deftest the-server-closes-with-a-code
  (with-server [s (fn [_] {:ring.websocket/listener {:on-message (fn [socket _] (wws/close socket 4001 "done"))}}) {}]
    (let [c (ws/connect (:port s) "/")]
      (ws/send-text! c "close me")
      (is (= [4001 "done"] (deref (:closed c) 10000 :hung))))))

(deftest a-websocket-response-to-a-plain-request-is-426
  (with-server [s (fn [_] {:ring.websocket/listener {}}) {}]
    (let [r (http/http (:port s) "GET" "/")]
      (is (= 426 (:status r)))
      (is (= "websocket" (http/header r "upgrade"))))))

(deftest a-bad-listener-is-a-500-that-names-the-fix
  (with-server [s (fn [_] {:ring.websocket/listener 42}) {}]
    (is (= 500 (:status (http/http (:port s) "GET" "/" :headers {"Upgrade" "websocket" "Connection" "Upgrade"
                                                                 "Sec-WebSocket-Key" "dGhlIHNhbXBsZSBub25jZQ=="
                                                                 "Sec-WebSocket-Version" "13"})))))
  (let [e (try (wws/send nil "x") (catch Exception e e))]
    (is (instance? Exception e))))

(deftest a-message-over-the-limit-closes-with-1009
  (with-server [s (echo-handler (atom [])) {:websocket-max-message-bytes 1000}]
    (let [c (ws/connect (:port s) "/")]
      (is (= "hello" (ws/take! c)))
      (ws/send-text! c (apply str (repeat 2000 "x")))
      (is (= 1009 (first (deref (:closed c) 10000 :hung)))))))

(defrecord RecordingListener [events]
  rp/Listener
  (on-open [_ socket] (swap! events conj :open) (rp/-send socket "via ring-core's protocols"))
  (on-message [_ socket message] (swap! events conj message) (rp/-send-async socket (str "async " message) #(swap! events conj :sent) nil))
  (on-pong [_ _ _])
  (on-error [_ _ _])
  (on-close [_ _ code _] (swap! events conj code)))

(deftest ring-core-listener-protocol-is-resolved-at-run-time
  (let [events (atom [])]
    (with-server [s (fn [_] {:ring.websocket/listener (->RecordingListener events)}) {}]
      (let [c (ws/connect (:port s) "/")]
        (is (= "via ring-core's protocols" (ws/take! c)) "a Listener value, and the socket satisfies Socket")
        (ws/send-text! c "m")
        (is (= "async m" (ws/take! c)) "AsyncSocket too")
        (ws/close! c 1000 "")
        (await! #(= [:open "m" :sent 1000] @events))))))

(deftest a-thousand-sockets-with-blocking-listeners-get-their-messages-in-order
  (let [n 1000
        per 20
        s (ring/run-server
           (fn [_]
             {:ring.websocket/listener
              {:on-message (fn [socket message]
                             (Thread/sleep 5) ; a listener that blocks
                             (wws/send socket message))}})
           {:port 0 :host "127.0.0.1"})]
    (try
      (with-open [^ExecutorService pool (Executors/newVirtualThreadPerTaskExecutor)]
        (let [clients (mapv deref (mapv (fn [_] (future (ws/connect (:port s) "/"))) (range n)))]
          (await! #(= n (:websockets (ring/stats s))) 60000)
          (let [results (mapv (fn [c]
                                (.submit pool ^Callable
                                         (fn []
                                           (dotimes [i per] (ws/send-text! c (str i)))
                                           (mapv (fn [_] (ws/take! c)) (range per)))))
                              clients)]
            (is (every? #(= (mapv str (range per)) %) (map #(.get ^Future % 120 TimeUnit/SECONDS) results))
                "every socket got its 20 messages back, in order"))
          (doseq [c clients] (ws/close! c 1000 ""))
          (await! #(zero? (:websockets (ring/stats s))) 60000)))
      (finally (ring/stop-server! s {:timeout-ms 10000})))))

(deftest a-slow-reader-holds-the-sender-back-instead-of-filling-memory
  (let [sent (AtomicInteger.)
        failed (promise)
        s (ring/run-server
           (fn [_]
             {:ring.websocket/listener
              {:on-open (fn [socket]
                          (future
                            (try
                              (let [chunk (apply str (repeat 16384 "x"))]
                                (loop [] (wws/send socket chunk) (.incrementAndGet sent) (recur)))
                              (catch Exception e (deliver failed e)))))}})
           {:port 0 :host "127.0.0.1"})]
    (try
      (let [c (ws/connect (:port s) "/" :auto-read? false)]
        (await! #(pos? (.get sent)))
        ;; The sender fills the TCP buffers, then blocks. On a loaded machine filling them can take
        ;; longer than a fixed second, so wait (hang guard 60 s) for a whole second with nothing more
        ;; sent; an unbounded queue never gives one, as the sender never blocks.
        (let [blocked-at (loop [before (.get sent) deadline (+ (System/currentTimeMillis) 60000)]
                           (Thread/sleep 1000)
                           (let [now (.get sent)]
                             (cond (= before now) now
                                   (> (System/currentTimeMillis) deadline) nil
                                   :else (recur now deadline))))]
          (is (some? blocked-at) "the sender is blocked: nothing more is queued while the client reads nothing")
          (is (< (* (or blocked-at (.get sent)) 16384) (* 64 1024 1024)) "what was sent fits the TCP buffers, not an unbounded queue"))
        (ws/read-more! c 1000000)
        (await! #(> (.get sent) 100) 30000)
        (is (> (.get sent) 100) "once the client reads, the sender goes on")
        (ws/close! c 1000 ""))
      (finally (ring/stop-server! s {:timeout-ms 10000})))))

(deftest stopping-the-server-closes-its-sockets
  (let [s (ring/run-server (echo-handler (atom [])) {:port 0 :host "127.0.0.1"})
        c (ws/connect (:port s) "/")]
    (is (= "hello" (ws/take! c)))
    (is (true? (ring/stop-server! s {:timeout-ms 10000})))
    (is (= 1001 (first (deref (:closed c) 10000 :hung))))))
