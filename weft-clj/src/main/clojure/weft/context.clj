(ns weft.context
  "Context keys: values that follow your code into every thread weft starts.

  A context key is defined once with `defcontext`, bound for a body with `with-context`,
  and read anywhere below it, in this thread and in every thread weft starts from there
  (`weft.thread/vthread`, `vfuture`, executors, `weft.scope` forks, `pmap`, `race`), with
  `@key`. `wrap` conveys the keys bound now through any function, Executor,
  ExecutorService or CompletionService.

      (defcontext request-id \"The id of the request being served.\")
      (defcontext retries \"How often to retry.\" {:default 3})

      (with-context [request-id \"r-42\"]
        @(weft.thread/vfuture @request-id))   ;=> \"r-42\"
      @retries                              ;=> 3, unbound: the default

  Context keys or dynamic vars?

  - Use a context key for values that many virtual threads need to see: a request id, a
    tenant, a deadline, a tracing span. Binding one and conveying it is O(1) whatever the
    number of keys, and a thread that never reads it pays nothing. A dynamic var costs
    every conveyed thread a ThreadLocal, and `bound-fn*` copies every binding in effect
    (a REPL has ~20 or more) into each task: the article this lab re-runs measured it
    ~5x slower than an explicit argument for 500,000 virtual-thread tasks.
  - Keep dynamic vars for what Clojure itself reads (`*out*`, `*print-length*`, ...), for
    `set!`, and for code that runs in one thread.
  - A context value cannot be changed in place (there is no `set!`): bind a new value
    for a body, or bind an atom.

  On JDK 25+ the bindings live in a java.lang.ScopedValue; on JDK 21-24 in a ThreadLocal
  with the same semantics. The Java API is dev.weft.context.Context and ContextKey: one
  concept, one name, in Java, Clojure and Kotlin."
  (:refer-clojure :exclude [key bound?])
  (:require [weft.impl.clojure-version]   ; first: on a Clojure older than weft supports, this fails naming the fix
            [weft.impl.options :as options])
  (:import (dev.weft.context Context Context$Bindings Context$CallableOp Context$Snapshot ContextKey)
           (java.util.concurrent Callable CompletionService Executor ExecutorService)))

(set! *warn-on-reflection* true)

(deftype ContextVar [^ContextKey key]
  clojure.lang.IDeref
  (deref [_] (.get key))
  Object
  (toString [_] (str "#weft/context " (.name key))))

(defmethod print-method ContextVar [^ContextVar v ^java.io.Writer w]
  (.write w (str v)))

(defn context-key?
  "True when `x` is a context key: a var's value made by `defcontext`, or a
  dev.weft.context.ContextKey."
  [x]
  (or (instance? ContextVar x) (instance? ContextKey x)))

(defn ^dev.weft.context.ContextKey key
  "The dev.weft.context.ContextKey behind `k` (a `defcontext` value or a ContextKey), for
  Java interop. Throws IllegalArgumentException naming the fix for anything else."
  [k]
  (cond
    (instance? ContextVar k) (.-key ^ContextVar k)
    (instance? ContextKey k) k
    (nil? k) (throw (IllegalArgumentException.
                     "a context key must not be nil; define one with weft.context/defcontext"))
    :else (throw (IllegalArgumentException.
                  (str (pr-str k) " is not a context key; define one with weft.context/defcontext"
                       " (for a dynamic var, use clojure.core/binding)")))))

(def ^:private key-options
  (options/spec "weft.context/defcontext"
                [{:key :default :type :any :default-doc "nil"
                  :doc "the value read where the key is not bound"}]
                {:example "{:default 3}"}))

(defn context-key
  "A new context key named `name` (a string) for keys made at run time; prefer
  `defcontext`."
  ([name] (context-key name {}))
  ([name opts]
   (ContextVar. (ContextKey/of (str name) (:default (options/check key-options opts))))))

(defmacro defcontext
  "Defines `name` as a context key: `(defcontext name doc-string? opts?)`.
  Deref it (`@name`) to read the value bound in this thread, or its default where it is
  not bound. Bind it with `with-context`.

  Re-evaluating a `defcontext` makes a new key: values bound to the old one are not seen
  through the new one."
  [name & [doc-or-opts opts]]
  (let [[doc opts] (if (string? doc-or-opts) [doc-or-opts opts] [nil doc-or-opts])]
    (when-not (symbol? name)
      (throw (IllegalArgumentException. (str "defcontext needs a symbol for its name; got " (pr-str name)))))
    (when-not (or (nil? opts) (map? opts))   ; a literal that is not a map: say so when it is compiled
      (options/check key-options opts))
    `(def ~(vary-meta name merge (cond-> {:weft/context true} doc (assoc :doc doc)))
       (context-key ~(str *ns* "/" name) ~opts))))

(defn- check-binding-vector!
  "Checks `with-context`'s bindings at macro-expansion time; throws naming the fix."
  [bindings env]
  (when-not (vector? bindings)
    (throw (IllegalArgumentException.
            (str "with-context needs a vector of key-value pairs, like (with-context [request-id \"r-1\"] ...); got "
                 (pr-str bindings)))))
  (when-not (even? (count bindings))
    (throw (IllegalArgumentException.
            (str "with-context needs an even number of forms, key-value pairs; got " (count bindings)
                 " in " (pr-str bindings)))))
  (doseq [k (take-nth 2 bindings)]
    (cond
      (nil? k)
      (throw (IllegalArgumentException.
              "with-context: nil is not a context key; define one with weft.context/defcontext"))
      (not (symbol? k))
      (throw (IllegalArgumentException.
              (str "with-context: " (pr-str k) " is not a context key name; name a key defined with"
                   " defcontext, or use with-context* for keys chosen at run time")))
      (contains? env k)
      (throw (IllegalArgumentException.
              (str "with-context: " k " is a local; name a key defined with defcontext,"
                   " or use with-context* for keys chosen at run time")))
      :else
      (let [v (resolve k)]
        (cond
          (not (var? v))
          (throw (IllegalArgumentException.
                  (str "with-context: " k " does not name a var; define it with (weft.context/defcontext " k ")")))
          (:weft/context (meta v)) nil
          (:dynamic (meta v))
          (throw (IllegalArgumentException.
                  (str "with-context: " k " is a dynamic var, not a context key; bind it with"
                       " clojure.core/binding, or define a context key with weft.context/defcontext")))
          :else
          (throw (IllegalArgumentException.
                  (str "with-context: " k " is not a context key; define it with (weft.context/defcontext "
                       (name k) ")"))))))))

(defn ^dev.weft.context.Context$CallableOp op
  "`f` (no arguments) as a dev.weft.context.Context$CallableOp, for Java's `call` methods
  and the macros of weft namespaces."
  [f]
  (reify Context$CallableOp (call [_] (f))))

(defmacro with-context
  "Evaluates `body` with context keys bound: `(with-context [key value ...] body)`, the
  context-key counterpart of `binding`. Each key must name a var defined with `defcontext`;
  that is checked when the form is compiled, and a dynamic var, a local or nil there is an
  error naming the fix. Values are evaluated in order, before any is bound. The bindings
  are seen by the body, by everything it calls in this thread, and by every thread weft
  starts from there; they end when the body returns. Returns the body's value. With no
  bindings, `(with-context [] body)`, it evaluates the body, as `binding` does."
  [bindings & body]
  (check-binding-vector! bindings &env)
  (if (empty? bindings)
    `(do ~@body)
    (let [pairs (partition 2 bindings)
          vals (repeatedly (count pairs) #(gensym "v"))]
      `(let [~@(interleave vals (map second pairs))]
         (.call ~(reduce (fn [acc [[k _] v]] `(.where ~acc (key ~k) ~v))
                         `(Context/where (key ~(ffirst pairs)) ~(first vals))
                         (map vector (rest pairs) (rest vals)))
                (op (^{:once true} fn* [] ~@body)))))))

(defn with-context*
  "Calls `f` (no arguments) with the context keys of `bindings`, a map from key (a
  `defcontext` value or a ContextKey) to value, in effect; returns its value. The function
  form of `with-context`, for keys chosen at run time. Throws IllegalArgumentException
  naming the fix for a key that is nil or not a context key."
  [bindings f]
  (if (empty? bindings)
    (f)
    (let [[[k v] & more] (seq bindings)
          ^Context$Bindings b (reduce (fn [^Context$Bindings b [k v]] (.where b (key k) v))
                                      (Context/where (key k) v)
                                      more)]
      (.call b (op f)))))

(defn value
  "The value of context key `k` in this thread, or `not-found` (default: the key's own
  default) where it is not bound. `@k` is `(value k)`."
  ([k] (.get (key k)))
  ([k not-found] (.orElse (key k) not-found)))

(defn bound?
  "True when context key `k` is bound where this code runs (to any value, nil included): by a
  `with-context` around it in this thread, or conveyed to this thread from the one that
  started it. The key's default does not count. Java: ContextKey.isBound."
  [k]
  (.isBound (key k)))

(defn capture
  "The context keys bound now, with their values: a dev.weft.context.Context$Snapshot,
  captured in O(1). Hand it to another thread and run code there with `call-with`; or
  convey in one step with `wrap`."
  ^Context$Snapshot []
  (Context/capture))

(defn call-with
  "Calls `f` (no arguments) with exactly the bindings of `snapshot` (from `capture`) in
  effect, and returns its value."
  [^Context$Snapshot snapshot f]
  (.call snapshot (op f)))

(defn wrap
  "Conveys context keys through `x`, with the keys bound now (or those of `snapshot`):
  - a function: returns a function that calls it (with any arguments) with those keys;
  - an ExecutorService, Executor or CompletionService: returns one that runs every task
    with the keys bound where the task was handed to it (the snapshot argument does not
    apply: each task captures its own).
  Use it for executors and libraries that start their own threads."
  ([x] (wrap nil x))
  ([^Context$Snapshot snapshot x]
   (cond
     (instance? ExecutorService x) (Context/wrap ^ExecutorService x)
     (instance? CompletionService x) (Context/wrap ^CompletionService x)
     (instance? Executor x) (Context/wrap ^Executor x)
     (fn? x) (let [^Context$Snapshot s (or snapshot (Context/capture))]
               (fn [& args] (.call s (op #(apply x args)))))
     :else (throw (IllegalArgumentException.
                   (str "wrap conveys context through a function, Executor, ExecutorService or"
                        " CompletionService; got " (pr-str x)))))))

(options/document! #'context-key key-options)
(options/document! #'defcontext key-options)
