(ns weft.thread
  "Virtual threads from Clojure: start them, wait for them, and see what the scheduler does.

  - `vthread` / `vthread-call`: run a body on a new virtual thread.
  - `vfuture` / `vfuture-call`: `future` on a virtual thread; deref rethrows the
    body's own exception rather than an ExecutionException.
  - `executor`, `thread-factory`: named executors (`weft-<name>-<n>`) that follow a
    thread policy, `:virtual`, `:platform` (a bounded pool) or `:auto`, given per call
    as `{:threads policy}` or globally with `-Dweft.threads=`.
  - `scheduler-snapshot`: the carrier pool and platform-thread figures as a map.

  Every function that starts a thread conveys the caller's context: the context keys
  bound at the call (`weft.context`, re-bound in the child in O(1) whatever their number)
  and the dynamic bindings the way `future` does (the child sees the bindings in effect at
  the call, in O(1), without copying them one by one as `bound-fn*` does). Executors
  from `executor` convey context keys to every task but not dynamic bindings (an
  ExecutorService cannot know the caller's binding frame): use a context key, or
  `bound-fn`, when a task handed to an executor must see a value.

  For structured concurrency (forks that end before their scope, `pmap`, `race`) see
  `weft.scope`; for context keys, `weft.context`. (Formerly `weft.core`, a name that read like
  the weft-core module; `weft.core` stays as a deprecated alias through this release.)"
  (:require [weft.impl.clojure-version]   ; first: on a Clojure older than weft supports, this fails naming the fix
            [weft.impl :as impl]
            [weft.impl.options :as options])
  (:import (dev.weft.context Context Context$CallableOp Context$Snapshot)
           (dev.weft.scheduler SchedulerSnapshot)
           (dev.weft.thread ThreadPolicy WeftThreads)
           (java.util.concurrent Callable ExecutionException ExecutorService Future
                                 FutureTask ThreadFactory TimeUnit TimeoutException)))

(set! *warn-on-reflection* true)

(defn thread-policy
  "The `dev.weft.thread.ThreadPolicy` for `policy`: a keyword or string (`:virtual`,
  `:platform`, `:auto`) or a ThreadPolicy. With no argument, the global policy set by the
  system property `weft.threads` (`:auto` when unset). Throws IllegalArgumentException
  naming the accepted values for anything else."
  (^ThreadPolicy [] (ThreadPolicy/configured))
  (^ThreadPolicy [policy]
   (cond
     (instance? ThreadPolicy policy) policy
     (or (keyword? policy) (string? policy)) (ThreadPolicy/parse (name policy))
     :else (throw (IllegalArgumentException.
                   (str "thread policy must be :virtual, :platform or :auto; got " (pr-str policy)))))))

(defn- threads-options
  "The options of `thread-factory` and `executor` (`what`)."
  [what]
  (options/spec (str "weft.thread/" what)
                [{:key :threads :default-doc "the global policy (-Dweft.threads, else :auto)"
                  :valid? #(or (instance? ThreadPolicy %)
                               (and (or (keyword? %) (string? %))
                                    (try (thread-policy %) true (catch IllegalArgumentException _ false))))
                  :must-be ":virtual, :platform, :auto or a dev.weft.thread.ThreadPolicy"
                  :coerce thread-policy
                  :doc "the thread policy"}]
                {:example "{:threads :virtual}"}))

(def ^:private thread-factory-options (threads-options "thread-factory"))
(def ^:private executor-options (threads-options "executor"))

(defn- policy-of ^ThreadPolicy [spec opts]
  (or (:threads (options/check spec opts)) (thread-policy)))

(defn thread-factory
  "A java.util.concurrent.ThreadFactory for threads named `weft-<name>-<n>` (n counts from 1).
  Virtual threads for a virtual policy, daemon platform threads otherwise."
  (^ThreadFactory [name] (thread-factory name {}))
  (^ThreadFactory [name opts] (WeftThreads/factory name (policy-of thread-factory-options opts))))

(defn executor
  "A java.util.concurrent.ExecutorService whose threads are named `weft-<name>-<n>`.
  Under a virtual policy every task gets a new virtual thread; under a platform policy tasks share at most
  `(dev.weft.thread.WeftThreads/platformPoolSize)` daemon threads and the rest queue.
  Close it with `.close` (or `with-open`), which waits for submitted tasks."
  (^ExecutorService [name] (executor name {}))
  (^ExecutorService [name opts] (WeftThreads/executor name (policy-of executor-options opts))))

(defn virtual-thread?
  "True when `thread` (default: the current thread) is a virtual thread."
  ([] (.isVirtual (Thread/currentThread)))
  ([^Thread thread] (.isVirtual thread)))

(defn- convey
  "f, wrapped to run with the caller's dynamic bindings and context keys."
  [f]
  (let [f ((impl/binding-conveyor) f)
        ^Context$Snapshot ctx (Context/capture)]
    ;; Every snapshot that binds nothing is the empty one; size would not do, as it leaves out
    ;; the keys weft keeps for itself (the current scope), which must be conveyed too.
    (if (identical? ctx (Context$Snapshot/empty))
      f
      (fn [] (.call ctx (reify Context$CallableOp (call [_] (f))))))))

(def ^:private ^ThreadFactory vthread-factory (WeftThreads/factory "vthread" ThreadPolicy/VIRTUAL))
(def ^:private ^ThreadFactory vfuture-factory (WeftThreads/factory "vfuture" ThreadPolicy/VIRTUAL))

(defn vthread-call
  "Calls `f` (no arguments) on a new virtual thread named `weft-vthread-<n>`, with the
  caller's dynamic bindings and context keys, and returns the started java.lang.Thread. Its result is
  discarded; an exception that escapes `f` goes to the thread's uncaught-exception
  handler (by default printed to stderr). Use `vfuture-call` to get a result back."
  ^Thread [f]
  (doto (.newThread vthread-factory ^Runnable (convey f))
    (.start)))

(defmacro vthread
  "Runs `body` on a new virtual thread and returns the started java.lang.Thread.
  See `vthread-call`."
  [& body]
  `(vthread-call (^{:once true} fn* [] ~@body)))

(defn- unwrap
  "Rethrows the exception the task itself threw, not the ExecutionException around it."
  [^ExecutionException e]
  (throw (or (.getCause e) e)))

(defn vfuture-call
  "Calls `f` (no arguments) on a new virtual thread named `weft-vfuture-<n>`, with the
  caller's dynamic bindings and context keys, and returns a future with `clojure.core/future` semantics:
  `deref` blocks (or waits at most `timeout-ms` and returns `timeout-val`), `realized?`
  and `future-done?` tell whether it finished, `future-cancel` interrupts the thread and
  a later deref throws java.util.concurrent.CancellationException.

  Unlike `future`, `deref` rethrows the exception `f` threw itself, not an
  ExecutionException wrapping it. The java.util.concurrent.Future methods keep their Java
  contract (`.get` wraps)."
  [f]
  (let [task (FutureTask. ^Callable (convey f))]
    (.start (.newThread vfuture-factory task))
    (reify
      clojure.lang.IDeref
      (deref [_]
        (try (.get task)
             (catch ExecutionException e (unwrap e))))
      clojure.lang.IBlockingDeref
      (deref [_ timeout-ms timeout-val]
        (try (.get task timeout-ms TimeUnit/MILLISECONDS)
             (catch ExecutionException e (unwrap e))
             (catch TimeoutException _ timeout-val)))
      clojure.lang.IPending
      (isRealized [_] (.isDone task))
      Future
      (get [_] (.get task))
      (get [_ timeout unit] (.get task timeout unit))
      (isCancelled [_] (.isCancelled task))
      (isDone [_] (.isDone task))
      (cancel [_ interrupt?] (.cancel task interrupt?)))))

(defmacro vfuture
  "Runs `body` on a new virtual thread and returns a future for its value.
  See `vfuture-call` for the semantics."
  [& body]
  `(vfuture-call (^{:once true} fn* [] ~@body)))

(defn scheduler-snapshot
  "The virtual-thread scheduler and platform threads now, as a map:
  `:parallelism` target carriers, `:pool-size` carriers that exist, `:mounted-virtual-threads`,
  `:queued-virtual-threads`, `:live-platform-threads`, `:peak-platform-threads`,
  `:started-platform-threads`, `:scheduler-available`, `:unavailable-reason` and `:at`.
  On JDK 21-23 the scheduler figures are nil and `:unavailable-reason` says why."
  []
  (impl/java->clj (.toMap (SchedulerSnapshot/take))))

(options/document! #'thread-factory thread-factory-options)
(options/document! #'executor executor-options)
