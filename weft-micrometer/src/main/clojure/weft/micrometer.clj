(ns weft.micrometer
  "Micrometer meters for weft's Clojure side. The Java binders (pins, scheduler, limiters,
  pools) are in dev.weft.micrometer; this namespace binds a weft-ring server and weft.async's
  core.async stragglers:

    (require '[weft.micrometer :as wm])
    (.bindTo (wm/ring-metrics server {:name \"api\"}) registry)
    (.bindTo (wm/async-metrics) registry)

  weft-ring and weft-async are not dependencies of weft-micrometer: `ring-metrics` reads the
  server through `weft.ring/stats` and `async-metrics` reads `weft.async/straggler-count`,
  each resolved when it is first called."
  (:import (dev.weft.micrometer WeftAsyncMetrics WeftRingMetrics)
           (io.micrometer.core.instrument Tag Tags)
           (java.util.function Supplier)))

(set! *warn-on-reflection* true)

(defn ring-metrics
  "A MeterBinder (dev.weft.micrometer.WeftRingMetrics) for a weft-ring `server`: gauges
  weft.ring.in.flight and weft.ring.waiting, counters weft.ring.rejected and
  weft.ring.abandoned, weft.ring.admitted, weft.ring.shed and weft.ring.dropped, and
  weft.ring.limit when the server has a limiter, read from
  `(weft.ring/stats server)` at each scrape. Options: :name (the `server` tag; default
  \"port-<port>\"), :tags (a map of more tags)."
  (^WeftRingMetrics [server] (ring-metrics server {}))
  (^WeftRingMetrics [server {:keys [name tags]}]
   (when-not (map? server)
     (throw (IllegalArgumentException.
             (str "ring-metrics needs the server weft.ring/run-server returned; got " (pr-str server)))))
   (let [stats (requiring-resolve 'weft.ring/stats)]
     (WeftRingMetrics. (str (or name (str "port-" (:port server))))
                       (reify Supplier (get [_] (stats server)))
                       (Tags/of ^Iterable (map (fn [[k v]] (Tag/of (clojure.core/name k) (str v))) tags))))))

(defn async-metrics
  "A MeterBinder (dev.weft.micrometer.WeftAsyncMetrics) for weft.async's core.async stragglers:
  the gauge weft.async.stragglers, `(weft.async/straggler-count opts)` at each scrape (tasks on
  weft's executor factory parked in a channel op longer than the straggler threshold). Options:
  :threshold (as for weft.async/stragglers; default the factory's), :tags (a map of tags).
  Needs weft-async on the classpath."
  (^WeftAsyncMetrics [] (async-metrics {}))
  (^WeftAsyncMetrics [{:keys [threshold tags]}]
   (let [straggler-count (or (requiring-resolve 'weft.async/straggler-count)
                             (throw (IllegalStateException. "async-metrics needs weft-async (weft.async) on the classpath")))
         opts (when (some? threshold) {:threshold threshold})]
     (straggler-count opts) ; checks the options now, not at the first scrape
     (WeftAsyncMetrics. (reify Supplier (get [_] (straggler-count opts)))
                        (Tags/of ^Iterable (map (fn [[k v]] (Tag/of (clojure.core/name k) (str v))) tags))))))
