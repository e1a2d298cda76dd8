(ns example.fanout
  "Existing core.async code, unchanged: N blocking calls made from go blocks and from `thread`.
  Started with -Dclojure.core.async.executor-factory=weft.async/executor-factory (the :test
  alias of deps.edn), each runs on a virtual thread of its own."
  (:require [clojure.core.async :as a]))

(defn fetch
  "Stands for a blocking call (an HTTP request, a query): waits `ms`, returns what ran it."
  [ms]
  (Thread/sleep (long ms))
  (let [t (Thread/currentThread)] {:thread (.getName t) :virtual? (.isVirtual t)}))

(defn fan-out-go
  "`n` go blocks, each making one blocking call; their results, in order."
  [n ms]
  (mapv a/<!! (mapv (fn [_] (a/go (fetch ms))) (range n))))

(defn fan-out-threads
  "`n` core.async threads, each making one blocking call; their results, in order."
  [n ms]
  (mapv a/<!! (mapv (fn [_] (a/thread (fetch ms))) (range n))))
