(ns weft.lab.context-scoped-value
  "The `scoped-value` variant of the `context` scenario: java.lang.ScopedValue is final
  only in JDK 25, so this namespace is loaded only there."
  (:import (java.lang ScopedValue ScopedValue$CallableOp)))

(set! *warn-on-reflection* true)

(def ^:private ^ScopedValue scoped-context (ScopedValue/newInstance))

(defn run
  "The article's scoped-value task through `pmap`: each task re-binds the ScopedValue to
  the value the caller had (what StructuredTaskScope's inheritance does for the article's
  pmap; weft's forks convey weft context keys, not raw ScopedValues) and reads it."
  [pmap n context-data]
  (let [v context-data]
    (pmap (fn [x]
            (.call (ScopedValue/where scoped-context v)
                   (reify ScopedValue$CallableOp
                     (call [_] (+ x (:increase (.get scoped-context)))))))
          (repeat n 1))))
