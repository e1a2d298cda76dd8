(ns weft.micrometer-test
  (:require [clojure.test :refer [deftest is]]
            [weft.micrometer :as wm]
            [weft.ring :as ring])
  (:import (dev.weft.limit AdaptiveLimit)
           (io.micrometer.core.instrument.simple SimpleMeterRegistry)
           (java.net URI)
           (java.net.http HttpClient HttpRequest HttpResponse HttpResponse$BodyHandlers)
           (java.util.concurrent TimeUnit)))

(set! *warn-on-reflection* true)

(defn- meter [^SimpleMeterRegistry r ^String name]
  (let [s (.tag (.get r name) "server" "api")]
    (if (#{"weft.ring.rejected" "weft.ring.abandoned"} name)
      (.count (.functionCounter s))
      (.value (.gauge s)))))

(deftest a-rejection-and-a-request-in-flight-show-on-the-servers-meters
  (let [release (promise)
        entered (promise)
        server (ring/run-server (fn [_] (deliver entered true) @release {:status 200 :body "ok"})
                                {:port 0 :host "127.0.0.1" :max-in-flight 1 :max-queued 0})
        registry (SimpleMeterRegistry.)
        client (HttpClient/newHttpClient)
        request (.build (HttpRequest/newBuilder (URI. (str "http://127.0.0.1:" (:port server) "/"))))]
    (try
      (.bindTo (wm/ring-metrics server {:name "api"}) registry)
      (let [first-response (.sendAsync client request (HttpResponse$BodyHandlers/ofString))]
        (is (deref entered 10000 false) "the first request reached the handler")
        (is (= 1.0 (meter registry "weft.ring.in.flight")))
        (is (= 503 (.statusCode ^HttpResponse (.send client request (HttpResponse$BodyHandlers/ofString))))
            "the server is full: the second request is rejected")
        (is (= 1.0 (meter registry "weft.ring.rejected")))
        (is (= 0.0 (meter registry "weft.ring.waiting")))
        (deliver release true)
        (is (= 200 (.statusCode ^HttpResponse (.get first-response 10 TimeUnit/SECONDS)))))
      (finally
        (deliver release true)
        (ring/stop-server! server)))
    (is (= 0.0 (meter registry "weft.ring.in.flight")))
    (is (nil? (.gauge (.find registry "weft.ring.limit"))) "no adaptive limit, no limit gauge")))

(deftest an-adaptive-limit-shows-as-the-limit-gauge
  (let [current (atom 3)
        limit (reify AdaptiveLimit
                (limit [_] (int @current))
                (onSample [_ _ _ _ _] (swap! current inc))) ; each completed request raises it by one
        server (ring/run-server (fn [_] {:status 200 :body "ok"}) {:port 0 :host "127.0.0.1" :limit limit})
        registry (SimpleMeterRegistry.)
        request (.build (HttpRequest/newBuilder (URI. (str "http://127.0.0.1:" (:port server) "/"))))]
    (try
      (.bindTo (wm/ring-metrics server {:name "api"}) registry)
      (is (= 3.0 (meter registry "weft.ring.limit")) "the gauge reads (:limit (ring/stats server))")
      (is (= 200 (.statusCode ^HttpResponse (.send (HttpClient/newHttpClient) request (HttpResponse$BodyHandlers/ofString)))))
      (loop [n 0] ; the sample is taken once the response is written: wait for it (a hang guard, not a timing)
        (when (and (= 3 @current) (< n 2000)) (Thread/sleep 5) (recur (inc n))))
      (is (= 4.0 (meter registry "weft.ring.limit")) "the gauge follows the limit at each scrape")
      (finally
        (ring/stop-server! server)))))

(deftest ring-metrics-names-its-input
  (is (thrown-with-msg? IllegalArgumentException #"needs the server weft.ring/run-server returned"
                        (wm/ring-metrics nil))))
