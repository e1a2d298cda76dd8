(ns ^:no-doc weft.ring.impl.server
  "Internal to weft-ring: the value `weft.ring/run-server` returns, and its drain. The record
  lives here so that its generated constructors are no part of weft.ring's API: a server comes
  only from `run-server`. Not an API: weft.ring is."
  (:require [weft.impl.options :as options])
  (:import (dev.weft.ring RingHandler Tls)
           (java.time Duration)
           (java.util.concurrent TimeoutException)
           (org.eclipse.jetty.server Server)))

(set! *warn-on-reflection* true)

(def stop-options
  "The options of `weft.ring/stop-server!`, here so that closing a server (`with-open`) drains
  with the same default."
  (options/spec "weft.ring/stop-server!"
                [{:key :timeout :type :duration :aliases [:timeout-ms] :default 30000
                  :doc "how long to wait for the requests in flight; 0 abandons them at once"}]
                {:example "{:timeout 30000}"}))

(defn stop!
  "Drains and stops `server` within `timeout`, as `weft.ring/stop-server!` documents; true when
  no request was abandoned and no response was lost in the drain."
  [server ^Duration timeout]
  (let [^Server jetty (:jetty server)
        ^RingHandler handler (:handler server)]
    (locking jetty
      (when-not (.isStopped jetty)
        (.setStopTimeout jetty (.toMillis timeout))
        (try
          (.stop jetty)
          (catch Exception e
            ;; Jetty reports a drain that ran out of time as a TimeoutException once it has
            ;; stopped everything; what was cut off is counted below.
            (when-not (some #(instance? TimeoutException %) (take-while some? (iterate ex-cause e)))
              (throw e)))))
      (and (zero? (.abandoned handler)) (zero? (.lostInDrain handler))))))

(defrecord RingServer [port ssl-port host ^Server jetty ^RingHandler handler ^Tls tls]
  java.lang.AutoCloseable
  (close [this]
    (stop! this (:timeout (options/check stop-options nil)))))
