(ns weft.slf4j
  "weft context keys in the SLF4J MDC. After `(mirror! {request-id \"requestId\"})`, every
  body that binds `request-id` (`with-context`) and every thread weft conveys it to (`fork`,
  `vthread`, `vfuture`, weft executors, `weft.context/wrap`ped ones) has the MDC entry
  `requestId`, so `%X{requestId}` in a Logback or Log4j2 pattern shows it; after the body or
  task the thread's previous entry is back.

    (require '[weft.context :refer [defcontext with-context]] '[weft.slf4j :as slf4j])
    (defcontext request-id)
    (slf4j/mirror! {request-id \"requestId\"})     ; once, at start-up
    (with-context [request-id \"r-42\"]
      @(weft.thread/vfuture (org.slf4j.MDC/get \"requestId\")))   ;=> \"r-42\"

  This namespace is in weft-slf4j, not weft-clj, so that weft-clj never depends on SLF4J.
  The Java side is dev.weft.slf4j.WeftMdc."
  (:require [weft.impl.clojure-version]   ; first: on a Clojure older than weft supports, this fails naming the fix
            [weft.context :as ctx])
  (:import (dev.weft.context ContextCarrier$Registration ContextKey)
           (dev.weft.slf4j WeftMdc)
           (java.util LinkedHashMap Map)))

(set! *warn-on-reflection* true)

(defn- mdc-name
  "The MDC entry name for `n`: a string as it is, a keyword or symbol by its name."
  ^String [k n]
  (cond
    (string? n) n
    (or (keyword? n) (symbol? n)) (name n)
    :else (throw (IllegalArgumentException.
                  (str "weft.slf4j/mirror!: the MDC name of " (pr-str k)
                       " must be a string, keyword or symbol; got " (pr-str n))))))

(defn mirror!
  "Mirrors context keys into the SLF4J MDC from now on. `names` maps each key (a
  `defcontext` value or a dev.weft.context.ContextKey) to its MDC entry name (a string, or a
  keyword or symbol, whose name is used). A key bound to a non-nil value is an entry holding
  `(str value)`; an unbound or nil key has none.

  Returns the registration (a java.lang.AutoCloseable): `(.close reg)` stops mirroring, so
  `with-open` mirrors for a block. Each call mirrors its keys once more: call it once, at
  start-up (`defonce` in a namespace that is reloaded).

  Throws IllegalArgumentException naming the fix when `names` is not a non-empty map, a key is
  not a context key, a name is blank or two keys share a name."
  ^ContextCarrier$Registration [names]
  (when-not (and (map? names) (seq names))
    (throw (IllegalArgumentException.
            (str "weft.slf4j/mirror! needs a non-empty map of context key to MDC name, like"
                 " {request-id \"requestId\"}; got " (pr-str names)))))
  (let [m (LinkedHashMap.)]
    (doseq [[k n] names]
      (.put m (ctx/key k) (mdc-name k n)))
    (WeftMdc/mirror ^Map m)))
