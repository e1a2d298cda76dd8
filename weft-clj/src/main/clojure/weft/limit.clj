(ns weft.limit
  "Limiters from Clojure: a dev.weft.limit.Limiter bounds how many callers are in at once, and
  one limiter may guard several entry points (weft.scope's and weft.ring's `:limiter`).

    (require '[weft.limit :as limit])
    (def db (limit/limiter \"db\" 20 {:max-waiting 200 :max-wait 2000}))
    (limit/call db #(query id))          ; waits for one of 20 permits, or throws LimitExceededException

  The permits are a fixed number, or follow a dev.weft.limit.AdaptiveLimit (weft-concurrency-
  limits' `vegas`, `aimd`, `gradient2`; weft.pool's `admission-limiter` builds one that follows
  a pool)."
  (:require [weft.impl.clojure-version]   ; first: on a Clojure older than weft supports, this fails naming the fix
            [weft.impl.options :as options])
  (:import (dev.weft.limit AdaptiveLimit Limiter Limiter$Builder)
           (java.time Duration)
           (java.util.concurrent Callable)))

(set! *warn-on-reflection* true)

(def ^:private limiter-options
  (options/spec "weft.limit/limiter"
                [{:key :max-waiting :type :nat-int :default-doc "unbounded; 0 never waits"
                  :doc "most callers waiting for a permit; more are rejected at once"}
                 {:key :max-wait :type :duration :default-doc "as long as it takes"
                  :doc "longest a caller waits for a permit, then it is rejected"}]
                {:example "{:max-waiting 200 :max-wait 2000}"}))

(defn limiter
  "A limiter named `limiter-name` (for messages and metrics) that lets in `permits` callers at
  once: a positive integer, or a dev.weft.limit.AdaptiveLimit whose current value it follows.
  Throws dev.weft.clj.InvalidOptionException for a bad option or `permits`."
  (^Limiter [limiter-name permits] (limiter limiter-name permits {}))
  (^Limiter [limiter-name permits opts]
   (let [{:keys [max-waiting max-wait]} (options/check limiter-options opts)
         n (if (instance? clojure.lang.Named limiter-name) (name limiter-name) (str limiter-name))
         ^Limiter$Builder b (cond
                              (instance? AdaptiveLimit permits) (Limiter/builder n ^AdaptiveLimit permits)
                              (and (integer? permits) (pos? permits) (<= permits Integer/MAX_VALUE)) (Limiter/builder n (int permits))
                              :else (throw (options/error "weft.limit/limiter"
                                                          (str "permits must be a positive integer or a dev.weft.limit.AdaptiveLimit; got "
                                                               (pr-str permits))
                                                          {:permits permits})))]
     (when max-waiting (.maxWaiting b (int max-waiting)))
     (when max-wait (.maxWait b ^Duration max-wait))
     (.build b))))

(options/document! #'limiter limiter-options)

(defn call
  "Calls `f` (no arguments) holding a permit of `l` and returns what it returns; see
  Limiter.call for how an adaptive limit learns from it. Throws LimitExceededException when
  rejected, without calling `f`."
  [^Limiter l f]
  (.call l ^Callable f))
