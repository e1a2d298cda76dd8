(ns ^:no-doc weft.impl
  "Internal to weft: helpers that weft's own namespaces share (conveying dynamic bindings,
  turning weft-core's Java data into Clojure data, reading durations). Not part of weft's
  API: names here may change in any release. Use weft.thread, weft.scope, weft.context and
  weft.pin instead."
  (:import (clojure.lang Var)
           (java.time Duration)
           (java.util List Map)))

(set! *warn-on-reflection* true)

(def ^:private root-binding-frame
  "The binding frame of a thread with no dynamic binding in effect (Var$Frame/TOP, which is
  not public), read from a fresh thread."
  (let [frame (promise)]
    (.join (.start (Thread/ofVirtual) ^Runnable (fn [] (deliver frame (Var/getThreadBindingFrame)))))
    @frame))

(defn binding-conveyor
  "A function of one argument `f` that returns `f` wrapped to run, in whatever thread, with
  the dynamic bindings in effect now (the binding frame, captured once here in O(1), as
  `clojure.core/future` conveys it). When no dynamic binding is in effect it returns `f`
  itself, so a fresh virtual thread pays nothing. Every weft function that starts a thread
  uses it."
  []
  (let [frame (Var/getThreadBindingFrame)]
    (if (identical? frame root-binding-frame)
      identity
      (let [frame (Var/cloneThreadBindingFrame)]
        (fn [f]
          (fn []
            (Var/resetThreadBindingFrame frame)
            (f)))))))

(defn java->clj
  "Java data from weft-core (maps with snake_case string keys, lists) as Clojure data: maps
  with kebab-case keyword keys, vectors; other values as they are."
  [x]
  (cond
    (instance? Map x) (persistent!
                       (reduce (fn [m [k v]] (assoc! m (keyword (.replace (str k) "_" "-")) (java->clj v)))
                               (transient {})
                               x))
    (instance? List x) (mapv java->clj x)
    :else x))

(defn duration
  "A java.time.Duration from `x`: a Duration, or a number of milliseconds (fractions count:
  0.5 is 500 microseconds). `what` names the option for the error. Throws
  IllegalArgumentException naming the fix for anything negative, not finite or not a number:
  weft's one rule for durations given in Clojure."
  ^Duration [what x]
  (let [bad #(IllegalArgumentException.
              (str what " must be milliseconds (a number, 0 or more) or a java.time.Duration that is not negative; got "
                   (pr-str x)))]
    (cond
      (instance? Duration x) (if (.isNegative ^Duration x) (throw (bad)) x)
      (and (number? x) (not (neg? x)) (Double/isFinite (double x)))
      (if (integer? x)
        (Duration/ofMillis (long x))
        (Duration/ofNanos (long (* 1e6 (double x)))))
      :else (throw (bad)))))
