(ns weft.concurrency-limits
  "Adaptive concurrency limits for weft, from Netflix's concurrency-limits: each function
  returns a dev.weft.limit.AdaptiveLimit to build a limiter with: `(weft.limit/limiter name
  limit opts)`, or `(dev.weft.limit.Limiter/builder name limit)`, for weft-ring's `:limiter`.

      (require '[weft.concurrency-limits :as limits] '[weft.limit :as limit] '[weft.ring :as ring])
      (ring/run-server handler {:port 8080 :limiter (limit/limiter \"api\" (limits/vegas {:initial-limit 10}) {:max-waiting 0})})

  - `vegas` settles just above the concurrency where latency starts to rise (it compares
    each latency with the lowest seen); the usual choice for a server in front of one
    downstream.
  - `aimd` grows by one per completed call while busy and backs off (x 0.9) on a drop or a
    call slower than its `:timeout`: simple, and right when a latency means overload (set
    `:timeout` to it: the default, 5 s, rarely is).
  - `gradient2` follows the ratio of the latency to its long-run average; it tolerates
    latency that drifts, and so reacts to sudden rises rather than to a steady knee (in
    front of one, give it `:rtt-tolerance 1.0`).

  The defaults are Netflix's, except `:min-limit`, 1 here (Netflix's builders: 20), so that
  a downstream that bears fewer than 20 calls at once is protected too. The Java side is
  dev.weft.concurrencylimits.NetflixLimit (wrap any Netflix Limit with `NetflixLimit/of`)."
  (:require [weft.impl.clojure-version]   ; first: on a Clojure older than weft supports, this fails naming the fix
            [weft.impl.options :as options])
  (:import (com.netflix.concurrency.limits.limit AIMDLimit Gradient2Limit VegasLimit)
           (dev.weft.concurrencylimits NetflixLimit)
           (java.time Duration)
           (java.util.concurrent TimeUnit)))

(set! *warn-on-reflection* true)

(defn- number-in [lo hi what]
  {:valid? #(and (number? %) (<= lo (double %) hi)) :must-be what :coerce double})

(def ^:private initial-limit
  {:key :initial-limit :type :pos-int :default 20 :doc "the limit before any call completed"})

(def ^:private min-limit
  {:key :min-limit :type :pos-int :default 1 :doc "the limit never goes below this"})

(defn- max-concurrency [default]
  {:key :max-concurrency :type :pos-int :default default :doc "the limit never goes above this"})

(defn- check-range [fn-name {:keys [initial-limit min-limit max-concurrency] :as opts}]
  (when (and min-limit (> min-limit max-concurrency))
    (throw (options/error fn-name (str ":min-limit " min-limit " is above :max-concurrency " max-concurrency
                                       "; lower :min-limit or raise :max-concurrency")
                          {:option :min-limit :options opts})))
  (when-not (<= (or min-limit 1) initial-limit max-concurrency)
    (throw (options/error fn-name (str ":initial-limit " initial-limit " must be from " (or min-limit 1)
                                       " (:min-limit) to " max-concurrency " (:max-concurrency)")
                          {:option :initial-limit :options opts})))
  opts)

(def ^:private aimd-options
  (options/spec
   "weft.concurrency-limits/aimd"
   [initial-limit min-limit (max-concurrency 200)
    (merge (number-in 0.5 0.999999 "a number from 0.5 to below 1")
           {:key :backoff-ratio :default 0.9 :doc "the limit is multiplied by this on a drop or a call slower than :timeout"})
    {:key :timeout :type :duration :default 5000
     :doc "a call slower than this counts as a drop (a sign of overload)"}]
   {:example "{:initial-limit 10 :timeout 500}"}))

(defn aimd
  "An AIMD limit (Netflix's AIMDLimit): while at least half the limit is in use, each call
  that completes within `:timeout` raises it by one; a dropped call, or one slower than
  `:timeout`, multiplies it by `:backoff-ratio`.

  Give `:timeout` the latency that means overload, e.g. 3 times the downstream's unloaded
  latency: the limit then stays below the concurrency at which calls queue that long. With
  the default 5 s, a downstream whose latency rises with load but stays under 5 s never
  lowers it: it grows until fewer than half of it are in use (twice the callers), where AIMD
  stops adjusting, and protects nothing."
  ([] (aimd {}))
  ([opts]
   (let [fn-name "weft.concurrency-limits/aimd"
         {:keys [initial-limit min-limit max-concurrency backoff-ratio ^Duration timeout]}
         (check-range fn-name (options/check aimd-options opts))]
     (when (zero? (.toNanos timeout))
       (throw (options/error fn-name ":timeout must be positive; got 0" {:option :timeout :options opts})))
     (NetflixLimit/of (-> (AIMDLimit/newBuilder)
                          (.initialLimit (int initial-limit))
                          (.minLimit (int min-limit))
                          (.maxLimit (int max-concurrency))
                          (.backoffRatio (double backoff-ratio))
                          (.timeout (.toNanos timeout) TimeUnit/NANOSECONDS)
                          (.build))))))

(options/document! #'aimd aimd-options)

(def ^:private vegas-options
  (options/spec
   "weft.concurrency-limits/vegas"
   [initial-limit (max-concurrency 1000)
    (merge (number-in 0.0 1.0 "a number from 0 to 1")
           {:key :smoothing :default 1.0 :doc "how much of each new estimate the limit takes (1: all of it)"})
    {:key :probe-multiplier :type :pos-int :default 30
     :doc "the lowest latency is measured afresh about every this many times the limit calls"}]
   {:example "{:initial-limit 10}"}))

(defn vegas
  "A Vegas limit (Netflix's VegasLimit): estimates the calls queued behind the limit as
  `limit x (1 - lowest latency / latency)`; grows while that queue is small (about 3 x
  log10 of the limit) and shrinks while it is large (6 x log10), so it settles just above
  the concurrency at which latency starts to rise. It has no minimum: it goes as low as 1."
  ([] (vegas {}))
  ([opts]
   (let [{:keys [initial-limit max-concurrency smoothing probe-multiplier]}
         (check-range "weft.concurrency-limits/vegas" (options/check vegas-options opts))]
     (NetflixLimit/of (-> (VegasLimit/newBuilder)
                          (.initialLimit (int initial-limit))
                          (.maxConcurrency (int max-concurrency))
                          (.smoothing (double smoothing))
                          (.probeMultiplier (int probe-multiplier))
                          (.build))))))

(options/document! #'vegas vegas-options)

(def ^:private gradient2-options
  (options/spec
   "weft.concurrency-limits/gradient2"
   [initial-limit min-limit (max-concurrency 200)
    {:key :queue-size :type :nat-int :default 4 :doc "calls allowed to queue beyond the estimate"}
    (merge (number-in 0.0 1.0 "a number from 0 to 1")
           {:key :smoothing :default 0.2 :doc "how much of each new estimate the limit takes"})
    (merge (number-in 1.0 Double/MAX_VALUE "a number, 1 or more")
           {:key :rtt-tolerance :default 1.5 :doc "how much slower than its long-run average a call may be before the limit shrinks"})
    {:key :long-window :type :pos-int :default 600 :doc "calls averaged into the long-run latency"}]
   {:example "{:initial-limit 10}"}))

(defn gradient2
  "A Gradient2 limit (Netflix's Gradient2Limit): each call moves the limit by the ratio of
  its latency to the long-run average latency (at most halving it), plus `:queue-size`,
  smoothed by `:smoothing`.

  It compares each latency with its own long-run average, not with the unloaded latency,
  so a latency that rises with load and then holds becomes its new normal. With the default
  `:rtt-tolerance` 1.5 (a latency up to 1.5 times the average lowers nothing), a downstream
  that slows down with concurrency never lowers the limit: it grows until fewer than half of
  it are in use (twice the callers), where Gradient2 stops adjusting, and protects nothing
  (Netflix/concurrency-limits issue 137). In front of such a downstream give
  `:rtt-tolerance 1.0`: any latency above the average then lowers the limit, which holds a
  band above the concurrency the downstream bears (about 2.5 times it in weft-ring's test;
  Vegas settles closer)."
  ([] (gradient2 {}))
  ([opts]
   (let [{:keys [initial-limit min-limit max-concurrency queue-size smoothing rtt-tolerance long-window]}
         (check-range "weft.concurrency-limits/gradient2" (options/check gradient2-options opts))]
     (NetflixLimit/of (-> (Gradient2Limit/newBuilder)
                          (.initialLimit (int initial-limit))
                          (.minLimit (int min-limit))
                          (.maxConcurrency (int max-concurrency))
                          (.queueSize (int queue-size))
                          (.smoothing (double smoothing))
                          (.rttTolerance (double rtt-tolerance))
                          (.longWindow (int long-window))
                          (.build))))))

(options/document! #'gradient2 gradient2-options)
