(ns ^:no-doc weft.async.impl.ops
  "Internal to weft.async: channel ops that can be interrupted without losing a value
  (decision 0501). Each op registers a handler of its own on the channel, a `Waiter`, which
  the channel commits under its lock or the waiting thread withdraws when interrupted: exactly
  one of the two happens. Not part of weft's API: use weft.async's `<!!`, `>!!`, `alts!!`."
  (:require [clojure.core.async.impl.protocols :as impl]
            [weft.async.impl.registry :as registry])
  (:import (java.util.concurrent CompletableFuture ThreadLocalRandom)
           (java.util.concurrent.atomic AtomicLong)
           (java.util.concurrent.locks Lock ReentrantLock)))

(set! *warn-on-reflection* true)

(def ^:private ^AtomicLong waiter-ids (AtomicLong.))

(definterface IWaiter
  (^boolean withdraw []))

;; One pending op (or alts): the channel commits it under its lock, or the waiting thread
;; withdraws it when interrupted; exactly one of the two happens. Ids are negative so that
;; they order consistently against core.async's own alts flags (positive ids): a handler of
;; ours is always locked first, whichever side starts the transfer.
(deftype Waiter [^ReentrantLock lock ^long id ^:volatile-mutable ^long state ^CompletableFuture result]
  Lock
  (lock [_] (.lock lock))
  (unlock [_] (.unlock lock))
  impl/Handler
  (active? [_] (zero? state))
  (blockable? [_] true)
  (lock-id [_] id)
  (commit [_] (set! state 1) true)
  IWaiter
  (withdraw [_]
    (.lock lock)
    (try
      (if (zero? state)
        (do (set! state 2) true)
        false)
      (finally (.unlock lock)))))

(defn- waiter ^Waiter []
  (Waiter. (ReentrantLock.) (.decrementAndGet waiter-ids) 0 (CompletableFuture.)))

(def ^:private on-caller {:on-caller? true})

;; The callback a channel runs when it commits an op: completes the waiter with `(f v)`. It
;; runs on the thread that completed the transfer (core.async's on-caller), not on a pool.
(deftype Deliver [^CompletableFuture result port]
  clojure.lang.IFn
  (invoke [_ v] (.complete result (if port [v port] v)))
  clojure.lang.IMeta
  (meta [_] on-caller))

(defn- handler [^Waiter w port]
  (let [cb (Deliver. (.-result w) port)]
    (reify
      Lock
      (lock [_] (.lock w))
      (unlock [_] (.unlock w))
      impl/Handler
      (active? [_] (impl/active? w))
      (blockable? [_] true)
      (lock-id [_] (impl/lock-id w))
      (commit [_] (impl/commit w) cb))))

(defn- await-op
  "Waits for `w`'s op. Interrupted: withdraws it and throws InterruptedException, or, when
  the channel had already committed to it, returns its value with the interrupt set again."
  [^Waiter w]
  (let [^CompletableFuture result (.-result w)]
    (try
      (.get result)
      (catch InterruptedException e
        (if (.withdraw w)
          (throw e)
          (let [v (.join result)]
            (.interrupt (Thread/currentThread))
            v))))))

(defn- park-on
  "Awaits `w`'s op (`op` on `ports`), telling the current process, if any, where it is parked
  for the leak report."
  [op ports ^Waiter w]
  (if-let [p (registry/current-process)]
    (do (registry/park! p op ports)
        (try (await-op w) (finally (registry/unpark! p))))
    (await-op w)))

(defn take!!
  "weft.async/<!!."
  [port]
  (let [w (waiter)]
    (if-some [ret (impl/take! port (handler w nil))]
      @ret
      (park-on :take [port] w))))

(defn put!!
  "weft.async/>!!."
  [port val]
  (let [w (waiter)]
    (if-some [ret (impl/put! port val (handler w nil))]
      @ret
      (park-on :put [port] w))))

(defn- shuffled-indexes ^ints [n]
  (let [a (int-array (range n))
        rnd (ThreadLocalRandom/current)]
    (loop [i (dec n)]
      (when (pos? i)
        (let [j (.nextInt rnd (inc i))
              t (aget a i)]
          (aset a i (aget a j))
          (aset a j t)
          (recur (dec i)))))
    a))

(defn- check-ops! [ports]
  (when (zero? (count ports))
    (throw (IllegalArgumentException. "alts!! needs at least one channel operation, like [ch] or [[ch v]]")))
  (doseq [p ports]
    (when (and (vector? p) (nil? (nth p 1 nil)))
      (throw (IllegalArgumentException. (str "alts!!: cannot put nil on a channel: " (pr-str p)))))))

(defn- try-ops
  "Offers `w`'s handler to each op of `ports` in the order of `idxs` until a channel completes
  one at once; returns `[value port]`, or nil when every op is pending on `w`."
  [ports ^ints idxs ^Waiter w]
  (let [n (count ports)]
    (loop [i 0]
      (when (< i n)
        (let [port (nth ports (aget idxs i))
              wport (when (vector? port) (nth port 0))
              box (if wport
                    (impl/put! wport (nth port 1) (handler w wport))
                    (impl/take! port (handler w port)))]
          (if box
            [@box (or wport port)]
            (recur (inc i))))))))

(defn- take-default
  "`[default :default]` when `w` can still be committed here (no channel took it meanwhile)."
  [^Waiter w default]
  (.lock w)
  (let [got (and (impl/active? w) (impl/commit w))]
    (.unlock w)
    (when got [default :default])))

(defn alts!!
  "weft.async/alts!!, with its options as a map."
  [ports opts]
  (let [ports (vec ports)
        _ (check-ops! ports)
        n (count ports)
        w (waiter)
        idxs (if (:priority opts) (int-array (range n)) (shuffled-indexes n))]
    (or (try-ops ports idxs w)
        (when (contains? opts :default)
          (take-default w (:default opts)))
        (park-on :alts (mapv #(if (vector? %) (nth % 0) %) ports) w))))
