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

  Options: a trailing map, for `with-scope` (and `open`), `pmap`, `pcalls` and `race`: `:name`,
  `:timeout` (milliseconds or a java.time.Duration), `:deadline`, `:max-concurrency`,
  `:limiter`, and for `with-scope` `:policy`; each function's docstring lists them. The
  table of every weft option is doc/options.md.

  The Java API is dev.weft.scope.Scope and Subtask."
  (:refer-clojure :exclude [pmap pcalls])
  (:require [weft.impl.clojure-version]   ; first: on a Clojure older than weft supports, this fails naming the fix
            [clojure.string :as str]
            [weft.impl :as impl]
            [weft.impl.options :as options])
  (:import (dev.weft.limit Limiter)
           (dev.weft.scope Joiner Scope Scope$Builder Scope$Policy Subtask Subtask$State)
           (java.time Duration Instant)
           (java.util.concurrent Callable CancellationException)))

(set! *warn-on-reflection* true)

(def ^:private policies
  {:all-succeed Scope$Policy/ALL_SUCCEED
   :first-success Scope$Policy/FIRST_SUCCESS
   :await-all Scope$Policy/AWAIT_ALL})

(defn- common-options
  "The options every scope function takes; `default-name` is its scope's name."
  [default-name]
  [{:key :name :type :name :default default-name
    :doc "the scope's name; its threads are `weft-<name>-<n>`"}
   {:key :timeout :type :duration :default-doc "none"
    :doc "counted from when the scope opens: when it passes, the scope is cancelled and `join`
          throws java.util.concurrent.TimeoutException"}
   {:key :deadline :default-doc "none"
    :valid? #(instance? Instant %) :must-be "a java.time.Instant"
    :doc "a java.time.Instant: the same as :timeout at a point in time"}
   {:key :max-concurrency :type :pos-int :default-doc "no cap"
    :doc "at most this many forks run at once; `fork` waits in the owner for one to end (or
          for the scope to be cancelled), so a million elements hold at most this many threads
          running"}
   {:key :limiter :default-doc "none"
    :valid? #(instance? Limiter %) :must-be "a dev.weft.limit.Limiter"
    :doc "a dev.weft.limit.Limiter whose permits the forks hold (shared with other code)"}])

(def ^:private exclusive-options
  "Options of which a scope takes one: given both, one would silently win."
  [[:timeout :deadline "a scope has one deadline"]
   [:max-concurrency :limiter "a :limiter already caps how many forks run: build it with the permits you want"]])

(def ^:private scope-options
  (options/spec "weft.scope/with-scope"
                (into [{:key :policy :default-doc ":all-succeed"
                        :valid? #(or (contains? policies %) (instance? Joiner %))
                        :must-be (str "one of " (str/join ", " (map pr-str (sort (keys policies))))
                                      ", or a dev.weft.scope.Joiner")
                        :coerce #(policies % %)
                        :doc ":all-succeed (the first failure cancels the rest and `join` throws
                              it, siblings' failures suppressed), :first-success (the first
                              success cancels the rest; `join` throws only when all failed),
                              :await-all (`join` waits for every fork and throws none of their
                              exceptions), or a new dev.weft.scope.Joiner of your own, whose
                              result `join` returns"}]
                      (common-options "scope"))
                {:exclusive exclusive-options :example "{:timeout 1000}"}))

(defn- eager-options
  "The spec of `pmap`, `pcalls` or `race` (`what`), which have their own policy."
  [what]
  (options/spec (str "weft.scope/" what) (common-options what)
                {:exclusive exclusive-options
                 :example "{:max-concurrency 16}"
                 :refused {:policy (str what " has its own policy; :policy is for with-scope"
                                        " (use race for first success)")}}))

(def ^:private pmap-options (eager-options "pmap"))
(def ^:private pcalls-options (eager-options "pcalls"))
(def ^:private race-options (eager-options "race"))

(defn- open-checked
  "Opens a scope with options `checked` by weft.impl.options."
  ^Scope [{:keys [name policy timeout deadline max-concurrency limiter]}]
  (let [^Scope$Builder b (Scope/builder)]
    (.name b ^String name)
    (cond
      (instance? Joiner policy) (.joiner b ^Joiner policy)
      policy (.policy b ^Scope$Policy policy))
    (when timeout (.timeout b ^Duration timeout))
    (when deadline (.deadline b ^Instant deadline))
    (when max-concurrency (.maxConcurrency b (int max-concurrency)))
    (when limiter (.limiter b ^Limiter limiter))
    (.open b)))

(defn open
  "Opens a dev.weft.scope.Scope owned by the calling thread, configured by `opts`. Prefer
  `with-scope`, which closes it; whoever calls `open` must `.close` the scope in the same
  thread. Throws dev.weft.clj.InvalidOptionException (an IllegalArgumentException) naming the
  fix for an unknown option or a bad value."
  (^Scope [] (open {}))
  (^Scope [opts] (open-checked (options/check scope-options opts))))

(defn- in-clojure-words
  "weft-core's complaint about forks closed unjoined, with the Clojure functions that fix it."
  ^IllegalStateException [^IllegalStateException e]
  (if (some-> (ex-message e) (str/includes? "forked after the last join"))
    (doto (IllegalStateException. (str (ex-message e) "; in Clojure: weft.scope/join / cancel!") (.getCause e))
      (.setStackTrace (.getStackTrace e)))
    e))

(defn ^:no-doc close-scope!
  "Ends `scope` after its body: on a normal exit closes it (which throws if forks were not
  joined); when the body threw `e`, cancels and closes it and rethrows `e`."
  [^Scope scope ^Throwable e]
  (if e
    (do (.cancel scope)
        (.close scope)
        (throw e))
    (try (.close scope)
         (catch IllegalStateException e (throw (in-clojure-words e))))))

(defmacro with-scope
  "Opens a scope, binds it to `sym`, evaluates `body` and closes the scope:
  `(with-scope [s opts?] body)`. Returns the body's value. Fork with `fork`, wait with
  `join`. When the body returns, forks must have been joined; when it throws, the scope is
  cancelled and closed, and the exception goes on. Either way the scope's threads have all
  ended when `with-scope` returns."
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
  "Waits until `scope` has its outcome and every fork has ended; returns nil (or the result of
  a joiner of your own given as :policy) or throws the outcome: the first failure's own
  exception (with the failures of its siblings suppressed) under :all-succeed,
  java.util.concurrent.TimeoutException when the deadline passed, InterruptedException when
  the owner was interrupted (the scope is cancelled). Under :first-success it throws only
  when every fork failed."
  [^Scope scope]
  (.join scope ^Joiner (.joiner scope)))

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
  "Forks `(g x)` for every x in `xs` in a scope configured by `checked` options; joins;
  returns the scope's subtasks in order."
  [checked g xs]
  (let [convey (impl/binding-conveyor)
        s (open-checked checked)
        tasks (try
                (let [tasks (reduce (fn [acc x] (conj! acc (.fork s ^Callable (convey (fn [] (g x))))))
                                    (transient [])
                                    xs)]
                  (.join s)
                  (persistent! tasks))
                (catch Throwable e (close-scope! s e)))]
    (close-scope! s nil)
    tasks))

(defn- results [tasks]
  (persistent! (reduce (fn [acc ^Subtask t] (conj! acc (.get t))) (transient []) tasks)))

(defn pmap
  "Like `clojure.core/pmap` over one collection, but structured: calls `f` on every
  element of `coll`, each on a virtual thread of its own, and returns a vector of the
  results in order once every call has ended. Fail-fast: the first exception cancels the
  other calls and is thrown, the siblings' failures suppressed. Eager (it must end before
  it returns), so `coll` must be finite. Each call sees the caller's context keys and
  dynamic bindings. For several collections: `(pmap #(apply f %) (map vector c1 c2))`.
  Options are a trailing map; :max-concurrency also bounds the threads alive."
  ([f coll] (pmap f coll nil))
  ([f coll opts]
   (results (run-all (options/check pmap-options opts) f coll))))

(defn- split-opts [args]
  (if (map? (last args)) [(butlast args) (last args)] [args nil]))

(defn pcalls
  "Calls every function (no arguments) at once, each on a virtual thread, and returns a
  vector of their values in order: `(pcalls f g h)` or `(pcalls f g h opts)`. Fail-fast
  like `pmap`; options are a trailing map."
  [& fns-and-opts]
  (let [[fns opts] (split-opts fns-and-opts)]
    (results (run-all (options/check pcalls-options opts) #(%) fns))))

(defn race
  "Calls every function (no arguments) at once, each on a virtual thread, and returns the
  value of the first to succeed; the others are cancelled (interrupted) and have ended
  when `race` returns. Throws when all failed: the first failure, the others suppressed;
  TimeoutException when a :timeout passed first. `(race f g)` or `(race f g opts)`; options
  are a trailing map."
  [& fns-and-opts]
  (let [[fns opts] (split-opts fns-and-opts)
        checked (options/check race-options opts)]
    (when (empty? fns)
      (throw (IllegalArgumentException. "race needs at least one function to call")))
    (let [tasks (run-all (assoc checked :policy Scope$Policy/FIRST_SUCCESS) #(%) fns)]
      (.get ^Subtask (first (filter #(identical? Subtask$State/SUCCESS (.state ^Subtask %)) tasks))))))

(options/document! #'open scope-options)
(options/document! #'with-scope scope-options)
(options/document! #'pmap pmap-options)
(options/document! #'pcalls pcalls-options)
(options/document! #'race race-options)
