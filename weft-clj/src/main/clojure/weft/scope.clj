(ns weft.scope
  "Structured concurrency: forks on virtual threads that all end before their scope does.

      (with-scope [s {:timeout 2000}]
        (let [user   (fork s (fetch-user id))
              orders (fork s (fetch-orders id))]
          (join s)                   ; the first failure cancels the other fork and is thrown
          {:user @user :orders @orders}))

      (pmap fetch ids {:max-concurrency 16})   ; ordered, fail-fast, at most 16 at once
      (race #(mirror-a) #(mirror-b))           ; first success wins, the other is cancelled

  A scope is owned by the thread that opens it; only that thread may fork, join and
  cancel. `with-scope` closes it at the end of its body: whatever is still running is
  cancelled (interrupted) and waited for, so no thread outlives the scope. Forking and not
  joining before the end of the body is an error (the outcomes would be lost), unless the
  body throws, in which case the scope is cancelled and the body's exception goes on.

  Every fork runs with the caller's context keys (`weft.context`) and dynamic bindings
  (the binding frame, conveyed in O(1) as `future` does). Prefer context keys for values
  many tasks read: see `weft.context`.

  Options (a trailing map, for `with-scope`, `pmap`, `pcalls` and `race`):
    :name             the scope's name; threads are `weft-<name>-<n>` (default \"scope\",
                      \"pmap\", \"pcalls\", \"race\")
    :policy           `with-scope` only: :all-succeed (default; the first failure cancels
                      the rest and `join` throws it, siblings' failures suppressed),
                      :first-success (the first success cancels the rest; `join` throws
                      only when all failed), or :await-all (`join` waits for every fork
                      and throws none of their exceptions)
    :timeout          milliseconds (a number, 0 or more), or a java.time.Duration, counted
                      from when the scope opens: the scope is cancelled when it passes and
                      `join` throws java.util.concurrent.TimeoutException
    :deadline         a java.time.Instant, the same as :timeout at a point in time; give
                      one of :timeout and :deadline
    :max-concurrency  at most this many forks run at once; `fork` waits in the owner for
                      one to end (or for the scope to be cancelled), so a million elements
                      hold at most this many threads running
    :limiter          a dev.weft.limit.Limiter whose permits the forks hold (shared with
                      other code); give one of :limiter and :max-concurrency

  The Java API is dev.weft.scope.Scope and Subtask."
  (:refer-clojure :exclude [pmap pcalls])
  (:require [weft.impl :as impl])
  (:import (dev.weft.limit Limiter)
           (dev.weft.scope Scope Scope$Builder Scope$Policy Subtask Subtask$State)
           (java.time Duration Instant)
           (java.util.concurrent Callable CancellationException)))

(set! *warn-on-reflection* true)

(def ^:private policies
  {:all-succeed Scope$Policy/ALL_SUCCEED
   :first-success Scope$Policy/FIRST_SUCCESS
   :await-all Scope$Policy/AWAIT_ALL})

(def ^:private option-keys #{:name :policy :timeout :deadline :max-concurrency :limiter})

(def ^:private exclusive-options
  "Options of which a scope takes one: given both, one would silently win."
  [[:timeout :deadline "a scope has one deadline"]
   [:max-concurrency :limiter "a :limiter already caps how many forks run: build it with the permits you want"]])

(defn- check-options!
  "Throws IllegalArgumentException naming the fix for options that are not a map, unknown
  keys, or two options of which a scope takes one."
  [opts]
  (when-not (or (nil? opts) (map? opts))
    (throw (IllegalArgumentException. (str "scope options must be a map, like {:timeout 1000}; got " (pr-str opts)))))
  (when-let [unknown (seq (remove option-keys (keys opts)))]
    (throw (IllegalArgumentException.
            (str "unknown scope option(s) " (pr-str (vec unknown)) "; known: " (pr-str (sort option-keys))))))
  (doseq [[a b why] exclusive-options]
    (when (and (some? (get opts a)) (some? (get opts b)))
      (throw (IllegalArgumentException.
              (str "scope options " a " and " b " were both given; keep one (" why ")"))))))

(defn open
  "Opens a dev.weft.scope.Scope owned by the calling thread, configured by `opts` (see the
  namespace docstring). Prefer `with-scope`, which closes it; whoever calls `open` must
  `.close` the scope in the same thread. Throws IllegalArgumentException naming the fix for
  an unknown option or a bad value."
  (^Scope [] (open {}))
  (^Scope [opts]
   (check-options! opts)
   (let [{:keys [name policy timeout deadline max-concurrency limiter]} opts
         ^Scope$Builder b (Scope/builder)]
     (when name (.name b (str name)))
     (when policy
       (.policy b (or (policies policy)
                      (throw (IllegalArgumentException.
                              (str ":policy must be one of " (pr-str (sort (keys policies))) "; got " (pr-str policy)))))))
     (when (some? timeout) (.timeout b (impl/duration ":timeout" timeout)))
     (when deadline
       (if (instance? Instant deadline)
         (.deadline b ^Instant deadline)
         (throw (IllegalArgumentException. (str ":deadline must be a java.time.Instant; got " (pr-str deadline))))))
     (when max-concurrency
       (if (integer? max-concurrency)
         (.maxConcurrency b (int max-concurrency))
         (throw (IllegalArgumentException. (str ":max-concurrency must be a positive integer; got " (pr-str max-concurrency))))))
     (when limiter
       (if (instance? Limiter limiter)
         (.limiter b ^Limiter limiter)
         (throw (IllegalArgumentException. (str ":limiter must be a dev.weft.limit.Limiter; got " (pr-str limiter))))))
     (.open b))))

(defn ^:no-doc close-scope!
  "Ends `scope` after its body: on a normal exit closes it (which throws if forks were not
  joined); when the body threw `e`, cancels and closes it and rethrows `e`."
  [^Scope scope ^Throwable e]
  (if e
    (do (.cancel scope)
        (.close scope)
        (throw e))
    (.close scope)))

(defmacro with-scope
  "Opens a scope, binds it to `sym`, evaluates `body` and closes the scope:
  `(with-scope [s opts?] body)`. Returns the body's value. Fork with `fork`, wait with
  `join`. When the body returns, forks must have been joined; when it throws, the scope is
  cancelled and closed, and the exception goes on. Either way the scope's threads have all
  ended when `with-scope` returns. Options: see the namespace docstring."
  [[sym opts] & body]
  (when-not (symbol? sym)
    (throw (IllegalArgumentException.
            (str "with-scope needs a symbol to bind the scope to, like (with-scope [s {:timeout 1000}] ...); got "
                 (pr-str sym)))))
  `(let [~(vary-meta sym assoc :tag `Scope) (open ~opts)
         result# (try (do ~@body)
                      (catch Throwable e# (close-scope! ~sym e#)))]
     (close-scope! ~sym nil)
     result#))

(defn- outcome
  "The value of `subtask` in state `s`, or what it throws."
  [^Subtask subtask s]
  (condp identical? s
    Subtask$State/SUCCESS (.get subtask)
    Subtask$State/FAILED (throw (.exception subtask))
    Subtask$State/CANCELLED (throw (CancellationException. (str subtask " was cancelled; it has no value")))
    (throw (IllegalStateException. (str subtask " is still running; (join scope) before deref")))))

(deftype Fork [^Subtask subtask]
  clojure.lang.IDeref
  (deref [_] (outcome subtask (.state subtask)))
  clojure.lang.IBlockingDeref
  (deref [_ timeout-ms timeout-val]
    (let [s (.await subtask (Duration/ofMillis (max 0 (long timeout-ms))))]   ; as a future's deref, below 0 is 0
      (if (identical? Subtask$State/RUNNING s)
        timeout-val
        (outcome subtask s))))
  clojure.lang.IPending
  (isRealized [_] (not (identical? Subtask$State/RUNNING (.state subtask)))))

(defn fork-call
  "Forks `f` (no arguments) in `scope` on a new virtual thread, with the caller's context
  keys and dynamic bindings, and returns the fork. After `join`, deref it for its value: it
  rethrows the fork's own exception if it failed, and throws CancellationException if the
  scope cancelled it; before, `@fork` throws IllegalStateException, while
  `(deref fork timeout-ms timeout-val)` waits at most `timeout-ms` for the fork to complete
  (from any thread; the owner must still `join`) and returns `timeout-val` if it has not.
  Only the scope's owner may fork: anyone else gets WrongThreadException, and a closed
  scope IllegalStateException."
  [^Scope scope f]
  (Fork. (.fork scope ^Callable ((impl/binding-conveyor) f))))

(defmacro fork
  "Forks `body` in `scope`; see `fork-call`."
  [scope & body]
  `(fork-call ~scope (^{:once true} fn* [] ~@body)))

(def ^:private states
  {Subtask$State/RUNNING :running
   Subtask$State/SUCCESS :success
   Subtask$State/FAILED :failed
   Subtask$State/CANCELLED :cancelled})

(defn state
  "The state of fork `f`: :running, :success, :failed or :cancelled."
  [^Fork f]
  (states (.state ^Subtask (.-subtask f))))

(defn exception
  "The exception fork `f` failed with, or nil when it did not fail."
  [^Fork f]
  (let [^Subtask s (.-subtask f)]
    (when (identical? Subtask$State/FAILED (.state s))
      (.exception s))))

(defn join
  "Waits until `scope` has its outcome and every fork has ended; returns nil or throws
  the outcome: the first failure's own exception (with the failures of its siblings
  suppressed) under :all-succeed, java.util.concurrent.TimeoutException when the deadline
  passed, InterruptedException when the owner was interrupted (the scope is cancelled).
  Under :first-success it throws only when every fork failed."
  [^Scope scope]
  (.join scope))

(defn cancel!
  "Cancels `scope`: forks that have not completed are interrupted and will be :cancelled,
  and later forks do not start. `join` still waits for their threads to end."
  [^Scope scope]
  (.cancel scope))

(defn current-scope
  "The innermost open scope this thread owns, or else the scope whose fork this thread
  is (or was started from with weft's conveyance), or nil."
  []
  (.orElse (Scope/current) nil))

(defn- run-all
  "Forks `(g x)` for every x in `xs` in a scope configured by `opts`; joins; returns the
  scope's subtasks in order."
  [opts g xs]
  (let [convey (impl/binding-conveyor)]
    (with-scope [s opts]
      (let [tasks (reduce (fn [acc x] (conj! acc (.fork s ^Callable (convey (fn [] (g x))))))
                          (transient [])
                          xs)]
        (.join s)
        (persistent! tasks)))))

(defn- results [tasks]
  (persistent! (reduce (fn [acc ^Subtask t] (conj! acc (.get t))) (transient []) tasks)))

(defn- check-opts [what opts]
  (when-not (or (nil? opts) (map? opts))
    (throw (IllegalArgumentException.
            (str what " options must be a map, like {:max-concurrency 16}; got " (pr-str opts)))))
  (when (contains? opts :policy)
    (throw (IllegalArgumentException.
            (str what " has its own policy; :policy is for with-scope (use race for first success)")))))

(defn pmap
  "Like `clojure.core/pmap` over one collection, but structured: calls `f` on every
  element of `coll`, each on a virtual thread of its own, and returns a vector of the
  results in order once every call has ended. Fail-fast: the first exception cancels the
  other calls and is thrown, the siblings' failures suppressed. Eager (it must end before
  it returns), so `coll` must be finite. Each call sees the caller's context keys and
  dynamic bindings. For several collections: `(pmap #(apply f %) (map vector c1 c2))`.

  Options (a trailing map): :max-concurrency (cap how many calls run at once, which also
  bounds the threads alive), :timeout, :deadline, :limiter, :name (default \"pmap\"); see
  the namespace docstring."
  ([f coll] (pmap f coll nil))
  ([f coll opts]
   (check-opts "pmap" opts)
   (results (run-all (merge {:name "pmap"} opts) f coll))))

(defn- split-opts [args]
  (if (map? (last args)) [(butlast args) (last args)] [args nil]))

(defn pcalls
  "Calls every function (no arguments) at once, each on a virtual thread, and returns a
  vector of their values in order: `(pcalls f g h)` or `(pcalls f g h opts)`. Fail-fast
  like `pmap`; a trailing map is options (see `pmap`)."
  [& fns-and-opts]
  (let [[fns opts] (split-opts fns-and-opts)]
    (check-opts "pcalls" opts)
    (results (run-all (merge {:name "pcalls"} opts) #(%) fns))))

(defn race
  "Calls every function (no arguments) at once, each on a virtual thread, and returns the
  value of the first to succeed; the others are cancelled (interrupted) and have ended
  when `race` returns. Throws when all failed: the first failure, the others suppressed;
  TimeoutException when a :timeout passed first. `(race f g)` or `(race f g opts)`; a
  trailing map is options (see `pmap`)."
  [& fns-and-opts]
  (let [[fns opts] (split-opts fns-and-opts)]
    (check-opts "race" opts)
    (when (empty? fns)
      (throw (IllegalArgumentException. "race needs at least one function to call")))
    (let [tasks (run-all (merge {:name "race"} opts {:policy :first-success}) #(%) fns)]
      (.get ^Subtask (first (filter #(identical? Subtask$State/SUCCESS (.state ^Subtask %)) tasks))))))
