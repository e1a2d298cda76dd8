(ns example.fanout-test
  (:require [clojure.core.async :as a]
            [clojure.string :as str]
            [clojure.test :refer [deftest is]]
            [example.fanout :as fanout]
            [weft.async :as wa]))

(deftest go-blocks-that-block-run-on-virtual-threads
  (let [results (fanout/fan-out-go 200 50)]
    (is (= 200 (count results)))
    (is (every? :virtual? results) "weft is core.async's executor factory (deps.edn's :test alias)")
    (is (every? #(str/starts-with? (:thread %) "async-dispatch-") results))))

(deftest threads-run-on-virtual-threads-and-are-counted
  (let [results (fanout/fan-out-threads 200 50)]
    (is (every? :virtual? results))
    (is (>= (get-in (wa/thread-stats) [:executors :mixed :started] 0) 200))))

(deftest a-thread-left-on-a-dropped-channel-is-named
  (let [c (a/chan)]
    (a/thread (a/<!! c))
    (loop [n 0] ; hang guard: until it parks
      (when (and (zero? (wa/straggler-count {:threshold 0})) (< n 1000)) (Thread/sleep 10) (recur (inc n))))
    (is (= [:mixed :take] ((juxt :workload :op) (first (wa/stragglers {:threshold 0})))))
    (a/close! c)))
