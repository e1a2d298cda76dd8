(ns weft.async
  "Processes and pipelines on virtual threads over core.async channels.

  A process runs a body on a virtual thread of its own, where blocking is cheap: it may use
  core.async channels with blocking ops and do any blocking I/O, and it returns a channel
  with its result, like `go`:

      (require '[clojure.core.async :as a]
               '[weft.async :as wa]
               '[weft.scope :refer [with-scope]])

      (with-scope [s]
        (let [pages (mapv #(wa/process (slurp %)) urls)]   ; one virtual thread each
          (mapv wa/<!! pages)))                             ; every page, in order

  Ownership. Every process belongs to a scope (`weft.scope`, dev.weft.scope.Scope): the
  scope given as `:scope`, else the current scope (`weft.scope/current-scope`: the scope
  this thread owns or was started from), else the process-wide root scope. Ending a scope
  interrupts the processes still running in it and waits for them, so a process parked
  on a channel nobody will ever use again cannot outlive its scope.

  The root scope holds the processes started outside any scope. Its policy: it opens on
  the first such process; its processes run until they end, like daemon threads (they do
  not keep the JVM alive); `stop-root!` interrupts them all and waits for them, and the
  next process outside a scope opens a new root. `leak-report` lists processes parked
  longer than a threshold, with their stacks. The system property `weft.async.root`
  chooses the policy: `allow` (the default) or `forbid`, where starting a process or a
  pipeline outside any scope throws IllegalStateException (for code that must be fully
  structured, and for tests).

  Channel ops. `<!!`, `>!!` and `alts!!` here have the contracts of core.async's and work
  in any thread; in a process they park its virtual thread. Unlike core.async's, they are
  safe to interrupt: an interrupted take or put is withdrawn from the channel, so no value
  is lost (core.async's `<!!`, interrupted, leaves its taker on the channel, which then
  swallows the next value put) and no put lands after its putter gave up. When the
  channel had already committed to the op, the op completes and the interrupt stays set.
  They also tell `leak-report` where a process is parked and since when. core.async's own
  blocking ops work in processes too; prefer these in code that a scope may cancel.

  Pipelines. `pipeline` (and its alias `pipeline-blocking`) has the contract of
  core.async's `pipeline`, on virtual threads: each input is transformed on a virtual
  thread of its own, at most `n` inputs are in the pipeline at once (from the take to the
  delivery of their outputs: back-pressure, so memory stays bounded with an endless
  input), ordered or not, with an ex-handler or fail-fast. One thread takes from `from`
  and one puts to `to`, so any `n` works: core.async's 1,024 pending takes per channel
  never limit it.

  Context. Processes and every pipeline thread run with the context keys (`weft.context`)
  and dynamic bindings in effect where they were started.

  Accounting. `thread-stats` says what the article printed by hand (platform threads,
  whether this code runs on a virtual thread, processes running), `measure-threads` what a
  call used (wall time, peak platform threads, processes), `processes` lists the live ones.

  core.async's own executors. `executor-factory`, named by the system property
  `-Dclojure.core.async.executor-factory=weft.async/executor-factory`, runs existing core.async
  code on virtual threads without a rewrite: `thread`, `io-thread`, `pipeline-blocking` workers
  and go-block dispatch each get a named virtual thread (`async-mixed-<n>`, ...), with the
  context keys of whoever started them, counted in `thread-stats`. A virtual thread parked on a
  channel nobody will use again never ends (the reason core.async keeps go blocks off virtual
  threads): `stragglers` lists those tasks with the line that waits, and `straggler-count`
  feeds metrics.

  Options are trailing maps (`process-call`, `pipeline`, `leak-report`, `measure-threads`);
  each function's docstring lists its own. The table of every weft option is doc/options.md."
  (:require [weft.impl.clojure-version]   ; first: on a Clojure older than weft supports, this fails naming the fix
            [clojure.core.async :as a]
            [weft.async.impl.executors :as executors]
            [weft.async.impl.ops :as ops]
            [weft.async.impl.pipeline :as pipeline]
            [weft.async.impl.registry :as registry]
            [weft.async.impl.tasks :as tasks]
            [weft.thread :as core]
            [weft.impl :as wimpl]
            [weft.impl.options :as options])
  (:import (dev.weft.scope Scope)
           (dev.weft.scheduler SchedulerSampler SchedulerSamples)
           (java.time Duration)))

(set! *warn-on-reflection* true)

;; The API and its docstrings. The process registry and ownership are in
;; weft.async.impl.registry, the interrupt-safe channel ops in weft.async.impl.ops, the
;; pipeline engine in weft.async.impl.pipeline.

;; ---------------------------------------------------------------------------------------
;; Options.

(defn- common-options
  "The options of `process-call` and `pipeline`; `default-name` names their threads."
  [default-name]
  [{:key :name :type :name :default default-name
    :doc "the name in thread names: `weft-<name>-<id>`"}
   {:key :ex-handler :type :fn :default-doc "none"
    :doc "a function of the exception; its non-nil value goes on the channel"}
   {:key :scope :default-doc "the current scope, else the root"
    :valid? #(instance? Scope %) :must-be "a dev.weft.scope.Scope (from weft.scope/with-scope)"
    :doc "the dev.weft.scope.Scope that owns the threads"}])

(def ^:private process-options
  (options/spec "weft.async/process-call" (common-options "process") {:example "{:name \"fetch\"}"}))

(defn- flag
  "An option that is true or false, where nil is false (as core.async reads it)."
  [k default doc]
  {:key k :default default :nilable? false :valid? (constantly true) :must-be "true or false"
   :coerce boolean :doc doc})

(def ^:private pipeline-options
  (options/spec "weft.async/pipeline"
                (into [(flag :close? true "close `to` when the pipeline ends")
                       (flag :ordered? true "outputs in the order of their inputs")]
                      (common-options "pipeline"))
                {:example "{:ordered? false}"}))

(def ^:private leak-report-options
  (options/spec "weft.async/leak-report"
                [{:key :threshold :type :duration :default 10000 :aliases [:threshold-ms]
                  :doc "report processes parked at least this long"}]
                {:example "{:threshold 5000}"}))

(def ^:private measure-threads-options
  (options/spec "weft.async/measure-threads"
                [{:key :interval :type :duration :default 10 :aliases [:interval-ms]
                  :valid? #(and (options/duration? %) (pos? (.toNanos (wimpl/duration ":interval" %))))
                  :must-be "a positive number of milliseconds or a positive java.time.Duration"
                  :doc "how often platform threads and the scheduler are sampled"}]
                {:example "{:interval 10}"}))

;; ---------------------------------------------------------------------------------------
;; Processes and the root.

(defn stop-root!
  "Ends the process-wide root scope: interrupts every process and pipeline started outside
  any scope that is still running, and waits for them to end, at most `timeout` when
  given (milliseconds or a java.time.Duration). Returns true when they all ended (or there was no root), false when the wait
  timed out (they were interrupted and end on their own). The next process started
  outside a scope opens a new root. For REPL resets, tests and orderly shutdown."
  ([] (stop-root! nil))
  ([timeout] (registry/stop-root! timeout)))

(defn process-call
  "Calls `f` (no arguments) on a new virtual thread, a process, and returns a channel that
  receives its result and then closes, like `go` and `thread`: nil closes it without a
  value. `f` may block: take and put with `<!!`, `>!!`, `alts!!` (these or core.async's),
  sleep, do I/O. It runs with the caller's context keys and dynamic bindings.

  The process belongs to the scope in `:scope`, else the current scope, else the root
  (see the namespace docstring): ending that scope interrupts the process if it still
  runs. A process that ends that way (an InterruptedException, ClosedByInterruptException
  or CancellationException while its scope is cancelled) is cancelled, not failed: its
  channel just closes. Any other exception goes to `:ex-handler`, whose non-nil return
  value is put on the channel; without one, to the thread's uncaught-exception handler
  (as for `go`), and the channel closes.

  Throws dev.weft.clj.InvalidOptionException (an IllegalArgumentException) for a bad option, CancellationException when the owning
  scope has ended (cancelled or closed; nothing starts, and a process that started it ends
  as cancelled), and IllegalStateException outside any scope under -Dweft.async.root=forbid."
  ([f] (process-call f nil))
  ([f opts]
   (when-not (ifn? f)
     (throw (IllegalArgumentException. (str "process-call needs a function of no arguments; got " (pr-str f)))))
   (let [opts (options/check process-options opts)
         {:keys [ex-handler]} opts
         c (a/chan 1)
         body ((wimpl/binding-conveyor) f)]
     (registry/spawn-owned! "process-call" opts (name (:name opts "process"))
                            (fn [scope] (registry/run-body scope body ex-handler c))
                            ;; closed once the process is unregistered: a closed channel means it has finished
                            #(a/close! c))
     c)))

(defmacro process
  "Runs `body` in a process, a virtual thread of its own, and returns a channel that
  receives its value and then closes, like `go`. See `process-call` for ownership,
  exceptions and options."
  [& body]
  `(process-call (^{:once true} fn* [] ~@body)))

;; ---------------------------------------------------------------------------------------
;; Channel ops that can be interrupted without losing a value.

(defn <!!
  "Takes a value from `port`, blocking (a virtual thread parks) until one is there; nil
  when the port is closed. core.async's `<!!`, in any thread, and safe to interrupt: an
  interrupted take is withdrawn (no value is taken, InterruptedException is thrown); when
  the channel had already handed it a value, it returns the value and the thread's
  interrupt is set again."
  [port]
  (ops/take!! port))

(defn >!!
  "Puts `val` (not nil) into `port`, blocking (a virtual thread parks) until it is
  accepted; returns true, or false when the port is closed. core.async's `>!!`, in any
  thread, and safe to interrupt: an interrupted put is withdrawn (the value is not put,
  InterruptedException is thrown); when the channel had already accepted it, it returns
  true and the thread's interrupt is set again."
  [port val]
  (ops/put!! port val))

(defn alts!!
  "Completes at most one of several channel operations, blocking (a virtual thread parks)
  until one can: core.async's `alts!!`. `ports` is a vector of channels to take from and
  `[channel value]` pairs to put; returns `[value port]`, where the value of a put is true
  (false when closed). Options: `:priority true` tries the ops in order (default: in
  random order), `:default v` returns `[v :default]` at once when no op is ready. Safe to
  interrupt: the pending ops are withdrawn and InterruptedException is thrown, or, when a
  channel had already completed one, its result is returned and the interrupt set again."
  [ports & {:keys [priority] :as opts}]
  (ops/alts!! ports opts))

;; ---------------------------------------------------------------------------------------
;; Pipelines.

(defn pipeline
  "Takes inputs from channel `from`, transforms each with transducer `xf` on a virtual
  thread of its own, and puts the outputs on channel `to`, with at most `n` inputs in the
  pipeline at once: core.async's `pipeline` on virtual threads, where `xf` may block. For
  a blocking function f of one input, `xf` is `(map f)` (or `(keep f)` when nil means no
  output). `xf` is applied to each input alone and may make zero or more outputs.

  Semantics, as core.async's where it has one:
  - Order: outputs come in the order of their inputs (`:ordered? false`: as they are
    ready).
  - Parallelism: at most `n` inputs are in the pipeline at once, from their take to the
    delivery of their outputs; any positive `n` works, 10,000 included. A slow `to` holds
    inputs back in `from` (back-pressure), so memory stays bounded with an endless input.
  - Close: when `from` closes and every output is delivered, `to` is closed (unless
    close? is false or nil). If `to` closes, the pipeline stops taking from `from`.
  - Errors: with an ex-handler (a function of the exception, as for `chan`), its non-nil
    return value is output in the failed input's place and the pipeline goes on. Without
    one, fail-fast: the first failure stops the pipeline; ordered, exactly the outputs of
    the inputs before the first failing input are delivered; inputs being transformed are
    interrupted and dropped, and `to` closes (unless close? is false or nil).
  - Context: every thread sees the context keys and dynamic bindings in effect at the call.
  - Ownership: the pipeline's threads are processes of the scope in `:scope`, else the
    current scope, else the root; ending that scope interrupts them and ends the pipeline.

  Returns a channel that closes once the pipeline has ended and every thread it started
  has ended. It first receives an exception when the pipeline stopped short: the failure
  (fail-fast, an ex-info whose cause is the input's exception and whose data has
  :weft.async/index and :weft.async/input) or a CancellationException (its scope ended).

  Arities: `(pipeline n to xf from)`, `(pipeline n to xf from close?)` and
  `(pipeline n to xf from close? ex-handler)` as in core.async, or `(pipeline n to xf from
  opts)` with the options below. Without :ex-handler a pipeline is fail-fast; its threads are
  `weft-<name>-<id>`, `weft-<name>-in-<id>` and `weft-<name>-out-<id>`.

  Throws IllegalArgumentException for a bad argument, naming the fix."
  ([n to xf from] (pipeline n to xf from {}))
  ([n to xf from close?-or-opts]
   (let [opts (if (map? close?-or-opts) close?-or-opts {:close? (boolean close?-or-opts)})]
     (pipeline/check-args! n to xf from)
     (pipeline/start! (long n) to xf from (options/check pipeline-options opts))))
  ([n to xf from close? ex-handler]
   (pipeline n to xf from {:close? (boolean close?) :ex-handler ex-handler})))

(def ^{:arglists '([n to xf from] [n to xf from close?-or-opts] [n to xf from close? ex-handler])}
  pipeline-blocking
  "The same as `pipeline`: every weft pipeline runs on virtual threads, where blocking is
  cheap. Kept so that code moving from core.async's `pipeline-blocking` changes only its
  require."
  pipeline)

;; ---------------------------------------------------------------------------------------
;; Accounting and leaks.

(defn processes
  "Every live process now (pipeline threads included), as maps, oldest first:
  `:id`, `:name`, `:thread` (its name), `:scope` (the owning scope's name), `:state`
  (:starting, :runnable, :waiting, :timed-waiting, :blocked), `:age-ms`, and when parked,
  `:parked-in` (:take, :put or :alts when in one of this namespace's channel ops,
  :other elsewhere: core.async's own ops, I/O, sleep, a lock), `:parked-ms` (in a channel
  op, the time since it parked there; elsewhere, since the process last returned from one
  of this namespace's channel ops or started: an upper bound) and `:channels` (the
  channels it waits on, in a channel op)."
  []
  (registry/processes))

(defn leak-report
  "The processes parked for at least `:threshold`, longest first, each
  as in `processes` plus `:stack`, its stack trace as strings, and `:at`, the first frame of
  the code that waits (outside the JDK, Clojure, core.async and weft). A process parked on
  a channel nobody will use again shows up here with the line that waits; end it by
  ending its scope (`stop-root!` for the root)."
  ([] (leak-report nil))
  ([opts]
   (registry/parked-at-least
    (/ (.toNanos ^Duration (:threshold (options/check leak-report-options opts))) 1e6))))

(defn thread-stats
  "Thread accounting now, what the article printed by hand: the scheduler and platform
  thread figures of `weft.thread/scheduler-snapshot` (`:live-platform-threads`,
  `:peak-platform-threads`, `:mounted-virtual-threads`, ...), the calling thread's
  `:thread` name and whether it is `:virtual?`, `:processes`: `:running`,
  `:peak-running` (since the JVM started or the last `measure-threads`), and how many
  `:started`, `:completed`, `:failed` and `:cancelled` (pipeline threads count as
  started, not as completed or failed), and `:executors`: for each core.async workload that
  ran a task on `executor-factory`'s executors, `{:running :queued :started :completed
  :failed}` (`:queued`: waiting for room under a `:max-concurrency` cap)."
  []
  (assoc (core/scheduler-snapshot)
         :thread (.getName (Thread/currentThread))
         :virtual? (core/virtual-thread?)
         :processes (registry/counts)
         :executors (tasks/counts)))

(defn measure-threads
  "Calls `f` (no arguments) and returns what it used: `{:value (f) :wall-ms ...
  :peak-platform-threads ... :platform-threads-started ... :max-mounted-virtual-threads ...
  :processes-started ... :peak-processes ... :scheduler {...}}`, where `:scheduler` has the
  maxima of every sample (dev.weft.scheduler.SchedulerSamples). Platform threads are sampled
  every `:interval` by one platform thread, counted in the figures; the JVM's
  peak platform-thread count and the peak of running processes are reset at the start, so
  measurements running at the same time see each other's peaks."
  ([f] (measure-threads f nil))
  ([f opts]
   (registry/reset-peak!)
   (let [^Duration interval (:interval (options/check measure-threads-options opts))
         before (registry/started-total)
         sampler (SchedulerSampler/start interval)
         t0 (System/nanoTime)
         value (try (f) (catch Throwable t (.stop sampler) (throw t)))
         wall (registry/ms-since (System/nanoTime) t0)
         ^SchedulerSamples samples (.stop sampler)]
     {:value value
      :wall-ms wall
      :peak-platform-threads (.peakPlatformThreads samples)
      :platform-threads-started (.platformThreadsStarted samples)
      :max-mounted-virtual-threads (let [m (.maxMountedVirtualThreads samples)] (when (>= m 0) m))
      :processes-started (- (registry/started-total) before)
      :peak-processes (registry/peak)
      :scheduler (into {} (map (fn [[k v]] [(keyword (.replace ^String k "_" "-")) v])) (.toMap samples))})))

;; ---------------------------------------------------------------------------------------
;; core.async's executors.

(defonce ^:private current-options
  ;; the options of the factory core.async uses (the last one made), for stragglers' default threshold
  (atom nil))

(defn executor-factory-of
  "A core.async executor factory with options `opts`: a function of a workload keyword that
  returns its java.util.concurrent.Executor, or nil for core.async's own, made once per
  workload. Name it in `-Dclojure.core.async.executor-factory` through a var of your own,
  `(def factory (weft.async/executor-factory-of {...}))`, to configure it in code; the
  options are read once, here. See `executor-factory` for what the executors do.

  Throws dev.weft.clj.InvalidOptionException (an IllegalArgumentException) for a bad option."
  ([] (executor-factory-of nil))
  ([opts]
   (let [opts (options/check executors/spec opts)
         made (into {} (map (fn [w] [w (delay (executors/executor-for opts w))])) executors/workloads)
         report (delay (executors/start-report! opts))]
     (reset! current-options opts)
     (fn factory [workload]
       @report
       (some-> (get made workload) deref)))))

(defonce ^:private property-factory
  (delay (executor-factory-of (executors/from-properties))))

(defn executor-factory
  "core.async's executor factory, for
  `-Dclojure.core.async.executor-factory=weft.async/executor-factory`: existing core.async
  code runs on virtual threads, with no change to the code. core.async (1.9.865) calls it
  once per workload, on its first dispatch, and keeps what it returns for the life of the
  JVM; this namespace loads then, if it has not already (loading it starts no core.async
  work).

  - `:io` (`io-thread`), `:mixed` (`thread`, `pipeline-blocking`'s workers) and
    `:core-async-dispatch` (go blocks, `put!`/`take!` callbacks): one new virtual thread per
    task, named `async-io-<n>`, `async-mixed-<n>`, `async-dispatch-<n>`, optionally capped.
  - `:compute` (`pipeline`'s workers): daemon platform threads `async-compute-<n>`, as many
    as the cores (core.async's own is an unbounded pool).
  - any other workload: nil, core.async's default.

  Each task runs with the context keys (weft.context) bound where core.async was handed it
  (not go-block dispatch, whose hand-over is whoever completed a channel op), is counted in
  `thread-stats`' `:executors`, and is registered while it runs, so that `stragglers` can
  find it. The options come from system properties, read on the first call:
  `weft.async.executor.virtual` (`io,mixed,core-async-dispatch`), `weft.async.executor.max-concurrency`
  (`io=500,mixed=200`), `weft.async.executor.compute-threads`, `weft.async.executor.context`
  (true/false), `weft.async.straggler-threshold` and `weft.async.straggler-report`
  (milliseconds); `executor-factory-of` takes them as a map.

  A cap (max-concurrency) queues the tasks beyond it, in order. Tasks that wait for each
  other (a `thread` that takes what another `thread` puts) deadlock once the cap is full of
  waiters and the task they wait for is queued: cap only work that never waits on work of
  the same workload, and never `:core-async-dispatch` when go blocks block.

  Throws IllegalArgumentException naming the system property when one is bad."
  [workload]
  (@property-factory workload))

(defn- straggler-threshold-ms
  "`(:threshold opts)` in milliseconds, else the factory's :straggler-threshold, else the
  system property's, else 10 s."
  ^double [opts]
  (if-some [t (:threshold opts)]
    (/ (.toNanos ^Duration t) 1e6)
    (executors/threshold-ms (or @current-options (options/check executors/spec nil)))))

(def ^:private stragglers-options
  (options/spec "weft.async/stragglers"
                [{:key :threshold :type :duration
                  :default-doc "the factory's :straggler-threshold (10000 ms unless set)"
                  :doc "report tasks that have run at least this long"}]
                {:example "{:threshold 5000}"}))

(defn stragglers
  "The tasks that core.async runs on `executor-factory`'s executors and that are parked in a
  channel op (core.async's or this namespace's `<!!`, `>!!`, `alts!!`) after running for at
  least `:threshold`, oldest first: most likely a `thread` or a pipeline worker waiting on a
  channel nobody will use again, which on a virtual thread never ends. Each is a map:
  `:id`, `:workload`, `:thread` (its name), `:virtual?`, `:op` (:take, :put or :alts),
  `:age-ms` (since the task started), `:at` (the first frame of the code that waits, outside
  the JDK, Clojure, core.async and weft) and `:stack` (the thread's stack, as strings).

  A task is reported when it is parked in a channel op now, however long it has been parked:
  `:age-ms` is an upper bound of the wait. Each straggler found for the first time gets a
  dev.weft.AsyncStraggler JFR event. Tasks on core.async's own executors are not seen: they
  are invisible without the factory."
  ([] (stragglers nil))
  ([opts]
   (tasks/stragglers (straggler-threshold-ms (options/check stragglers-options opts)))))

(defn straggler-count
  "How many tasks `stragglers` would list now (options as there), for metrics: the Micrometer
  gauge `weft.async.stragglers` (`weft.micrometer/async-metrics`) reads it."
  (^long [] (straggler-count nil))
  (^long [opts]
   (tasks/straggler-count (straggler-threshold-ms (options/check stragglers-options opts)))))

(options/document! #'executor-factory-of executors/spec)
(options/document! #'stragglers stragglers-options)
(options/document! #'straggler-count stragglers-options)
(options/document! #'process-call process-options)
(options/document! #'pipeline pipeline-options)
(options/document! #'leak-report leak-report-options)
(options/document! #'measure-threads measure-threads-options)
