(ns weft.micrometer
  "Micrometer meters for weft's Clojure side. The Java binders (pins, scheduler, limiters,
  pools) are in dev.weft.micrometer; this namespace binds a weft-ring server:

    (require '[weft.micrometer :as wm])
    (.bindTo (wm/ring-metrics server {:name \"api\"}) registry)

  weft-ring is not a dependency of weft-micrometer: `ring-metrics` reads the server through
  `weft.ring/stats`, resolved when it is first called."
  (:import (dev.weft.micrometer WeftRingMetrics)
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
