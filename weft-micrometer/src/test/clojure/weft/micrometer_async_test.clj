(ns weft.micrometer-async-test
  (:require [clojure.core.async :as a]
            [clojure.test :refer [deftest is]]
            [weft.async :as wa]
            [weft.micrometer :as wm])
  (:import (io.micrometer.core.instrument.simple SimpleMeterRegistry)
           (java.util.concurrent Executor)))

(set! *warn-on-reflection* true)

(defn- gauge ^double [^SimpleMeterRegistry r]
  (.value (.gauge (.tag (.get r "weft.async.stragglers") "app" "test"))))

(deftest a-task-parked-on-a-dropped-channel-shows-on-the-straggler-gauge
  (let [registry (SimpleMeterRegistry.)
        lost (a/chan)
        ^Executor mixed ((wa/executor-factory-of) :mixed)]
    (.bindTo (wm/async-metrics {:threshold 0 :tags {:app "test"}}) registry)
    (is (= 0.0 (gauge registry)) "no task yet")
    (try
      (.execute mixed (fn [] (a/<!! lost)))
      (loop [n 0] ; hang guard: until the task parks in its take
        (when (and (zero? (gauge registry)) (< n 1000)) (Thread/sleep 10) (recur (inc n))))
      (is (= 1.0 (gauge registry)) "the parked task is counted at the scrape")
      (finally (a/close! lost)))
    (loop [n 0]
      (when (and (pos? (gauge registry)) (< n 1000)) (Thread/sleep 10) (recur (inc n))))
    (is (= 0.0 (gauge registry)) "and no longer once it ended")))

(deftest async-metrics-checks-its-options-when-made
  (is (thrown-with-msg? IllegalArgumentException #":threshold must be" (wm/async-metrics {:threshold -5}))))
