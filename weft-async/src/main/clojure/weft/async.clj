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

  Options are trailing maps (`process-call`, `pipeline`, `leak-report`, `measure-threads`);
  each function's docstring lists its own. The table of every weft option is doc/options.md."
  (:require [clojure.core.async :as a]
            [clojure.core.async.impl.protocols :as impl]
            [weft.core :as core]
            [weft.impl :as wimpl]
            [weft.impl.options :as options])
  (:import (dev.weft.context Context ContextKey)
           (dev.weft.jfr PipelineStopEvent)
           (dev.weft.scope Scope)
           (dev.weft.thread SchedulerSampler SchedulerSamples)
           (java.nio.channels ClosedByInterruptException)
           (java.time Duration)
           (java.util ArrayList List Map)
           (java.util.concurrent CancellationException CompletableFuture ConcurrentHashMap
                                 CountDownLatch LinkedBlockingQueue Semaphore ThreadLocalRandom TimeUnit)
           (java.util.concurrent.atomic AtomicLong AtomicReference LongAdder)
           (java.util.concurrent.locks Lock ReentrantLock)))

(set! *warn-on-reflection* true)

;; ---------------------------------------------------------------------------------------
;; Processes: the registry and the counters behind leak-report and thread-stats.

(definterface IProc
  (^Thread runner [])
  (started [^Thread t])
  (park [op ports])
  (unpark [])
  (describe [^long now]))

(defn- parked-state? [state]
  (contains? #{:waiting :timed-waiting :blocked} state))

(defn- state-keyword [^Thread t]
  (if t
    (keyword (.replace (.toLowerCase (str (.getState t))) "_" "-"))
    :starting))

(defn- ms-since ^double [^long now ^long since]
  (/ (- now since) 1e6))

(deftype Proc [^long id ^String pname ^Scope scope ^long started-at
               ^:volatile-mutable ^Thread thread
               ^:volatile-mutable ^long parked-since   ; in a weft op since; 0 when not
               ^:volatile-mutable parked-op
               ^:volatile-mutable parked-ports
               ^:volatile-mutable ^long active-at]     ; last return from a weft op, or the start
  IProc
  (runner [_] thread)
  (started [_ t] (set! thread t) nil)
  (park [_ op ports]
    (set! parked-op op)
    (set! parked-ports ports)
    (set! parked-since (System/nanoTime))
    nil)
  (unpark [_]
    (let [now (System/nanoTime)]
      (set! parked-since 0)
      (set! parked-ports nil)
      (set! active-at now))
    nil)
  (describe [_ now]
    (let [t thread
          since parked-since
          state (state-keyword t)
          in-op? (and (not (zero? since)) (parked-state? state))]
      {:id id
       :name pname
       :thread (some-> t .getName)
       :scope (.name scope)
       :state state
       :parked-in (cond in-op? parked-op (parked-state? state) :other)
       :parked-ms (cond in-op? (ms-since now since) (parked-state? state) (ms-since now active-at))
       :channels (when in-op? parked-ports)
       :age-ms (ms-since now started-at)})))

(defonce ^:private ^AtomicLong next-id (AtomicLong.))
(defonce ^:private ^ConcurrentHashMap live (ConcurrentHashMap.))
(defonce ^:private ^AtomicLong running (AtomicLong.))
(defonce ^:private ^AtomicLong peak-running (AtomicLong.))
(defonce ^:private ^LongAdder started-count (LongAdder.))
(defonce ^:private ^LongAdder completed-count (LongAdder.))
(defonce ^:private ^LongAdder failed-count (LongAdder.))
(defonce ^:private ^LongAdder cancelled-count (LongAdder.))

(def ^:private ^ContextKey current-proc
  "The process the current thread runs, for the leak report. A hidden context key, not a
  ThreadLocal: setting a ThreadLocal in a fresh virtual thread allocates its ThreadLocalMap
  and a weak entry, per process; a key is one binding in the snapshot the thread already has."
  (ContextKey/hidden "weft.async/process"))

(defn- count-start! []
  (.increment started-count)
  (let [r (.incrementAndGet running)]
    (loop []
      (let [p (.get peak-running)]
        (when (and (> r p) (not (.compareAndSet peak-running p r)))
          (recur))))))

(defn- end-proc! [^Proc p]
  (.remove live (.-id p))
  (.decrementAndGet running))

(defn- run-proc [^Proc p f after]
  (let [t (Thread/currentThread)]
    (.setName t (str "weft-" (.-pname p) "-" (.-id p)))
    (.started p t)
    (try
      (.run (Context/where current-proc p) ^Runnable f)
      (finally
        (end-proc! p)
        (when after (after))))))

(defn- spawn!
  "Starts `(f)` on a new virtual thread owned by `scope` (Scope.spawn), registered as a
  process named `pname`; `(after)`, when given, runs in that thread once the process is
  no longer registered. Throws what Scope.spawn throws when the scope is closed or
  cancelled; nothing is started then (and `after` does not run)."
  ([scope pname f] (spawn! scope pname f nil))
  ([^Scope scope ^String pname f after]
   (let [id (.incrementAndGet next-id)
         p (Proc. id pname scope (System/nanoTime) nil 0 nil nil (System/nanoTime))]
     (.put live id p)
     (count-start!)
     (try
       (.spawn scope ^Runnable (fn [] (run-proc p f after)))
       (catch Throwable t
         (end-proc! p)
         ;; A closed scope refuses with IllegalStateException; for a process that is its
         ;; scope's end, a cancellation, like the refusal of a cancelled one.
         (throw (if (and (instance? IllegalStateException t) (.isClosed scope))
                  (doto (CancellationException. (str "scope " (.name scope) " has ended, so no process starts in it;"
                                                     " start it while the scope is open, or in another scope"))
                    (.initCause t))
                  t))))
     p)))

;; ---------------------------------------------------------------------------------------
;; Ownership: the current scope, or the root.

(def ^:private root-property "weft.async.root")

(defn- root-allowed? []
  (let [v (System/getProperty root-property "allow")]
    (case v
      "allow" true
      "forbid" false
      (throw (IllegalArgumentException.
              (str "-D" root-property " must be allow or forbid; got \"" v "\""))))))

(deftype Root [^Scope scope ^CountDownLatch stop ^Thread owner])

(defonce ^:private ^AtomicReference root (AtomicReference.))
(defonce ^:private ^ReentrantLock root-lock (ReentrantLock.))

(defn- open-root!
  "Opens a root scope, owned by a virtual thread that waits until `stop-root!` and then
  closes it (which interrupts the root's processes and waits for them)."
  ^Root []
  (let [ready (CompletableFuture.)
        stop (CountDownLatch. 1)
        owner (-> (Thread/ofVirtual)
                  (.name "weft-async-root")
                  (.unstarted
                   (fn []
                     (let [s (-> (Scope/builder) (.name "async-root") (.open))]
                       (.complete ready s)
                       (loop []
                         (when-not (try (.await stop) true (catch InterruptedException _ false))
                           (recur)))
                       (.cancel s)
                       (.close s)))))]
    (.start owner)
    (Root. (.join ready) stop owner)))

(defn- the-root ^Root []
  (or (.get root)
      (do (.lock root-lock)
          (try
            (or (.get root)
                (let [r (open-root!)]
                  (.set root r)
                  r))
            (finally (.unlock root-lock))))))

(defn stop-root!
  "Ends the process-wide root scope: interrupts every process and pipeline started outside
  any scope that is still running, and waits for them to end, at most `timeout` when
  given (milliseconds or a java.time.Duration). Returns true when they all ended (or there was no root), false when the wait
  timed out (they were interrupted and end on their own). The next process started
  outside a scope opens a new root. For REPL resets, tests and orderly shutdown."
  ([] (stop-root! nil))
  ([timeout]
   (if-let [^Root r (.getAndSet root nil)]
     (do (.countDown ^CountDownLatch (.-stop r))
         (if (some? timeout)
           (.join ^Thread (.-owner r) (wimpl/duration "stop-root! timeout" timeout))
           (do (.join ^Thread (.-owner r)) true)))
     true)))

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

(defn- spawn-owned!
  "Spawns `(f scope)` as a process named `pname` in the scope that owns what `what` starts:
  `(:scope opts)`, the current scope, or the root (opened on demand); `after` as for
  `spawn!`. Returns the scope."
  ^Scope [what opts pname f after]
  ;; currentOrEnded, not current: a thread of a scope that is ending must be refused by that
  ;; scope, not start a process that escapes to an enclosing scope or the root
  (if-let [^Scope s (or (:scope opts) (.orElse (Scope/currentOrEnded) nil))]
    (do (spawn! s pname #(f s) after) s)
    (do (when-not (root-allowed?)
          (throw (IllegalStateException.
                  (str what " started outside any scope, and -D" root-property "=forbid: start it inside"
                       " (weft.scope/with-scope [s] ...), pass {:scope s}, or allow the root scope with -D"
                       root-property "=allow"))))
        (loop [tries 3]
          (let [r (the-root)
                s (.-scope r)
                started (try (spawn! s pname #(f s) after) true
                             (catch CancellationException e (if (and (pos? tries) (not (identical? r (.get root)))) false (throw e))))]
            ;; A root being stopped by stop-root! at this moment refuses; the next root takes it.
            (if started s (recur (dec tries))))))))

;; ---------------------------------------------------------------------------------------
;; Channel ops that can be interrupted without losing a value.

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

(defn- park-on [op ports ^Waiter w]
  (if-let [^Proc p (.get current-proc)]
    (do (.park p op ports)
        (try (await-op w) (finally (.unpark p))))
    (await-op w)))

(defn <!!
  "Takes a value from `port`, blocking (a virtual thread parks) until one is there; nil
  when the port is closed. core.async's `<!!`, in any thread, and safe to interrupt: an
  interrupted take is withdrawn (no value is taken, InterruptedException is thrown); when
  the channel had already handed it a value, it returns the value and the thread's
  interrupt is set again."
  [port]
  (let [w (waiter)]
    (if-some [ret (impl/take! port (handler w nil))]
      @ret
      (park-on :take [port] w))))

(defn >!!
  "Puts `val` (not nil) into `port`, blocking (a virtual thread parks) until it is
  accepted; returns true, or false when the port is closed. core.async's `>!!`, in any
  thread, and safe to interrupt: an interrupted put is withdrawn (the value is not put,
  InterruptedException is thrown); when the channel had already accepted it, it returns
  true and the thread's interrupt is set again."
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

(defn alts!!
  "Completes at most one of several channel operations, blocking (a virtual thread parks)
  until one can: core.async's `alts!!`. `ports` is a vector of channels to take from and
  `[channel value]` pairs to put; returns `[value port]`, where the value of a put is true
  (false when closed). Options: `:priority true` tries the ops in order (default: in
  random order), `:default v` returns `[v :default]` at once when no op is ready. Safe to
  interrupt: the pending ops are withdrawn and InterruptedException is thrown, or, when a
  channel had already completed one, its result is returned and the interrupt set again."
  [ports & {:keys [priority] :as opts}]
  (let [ports (vec ports)
        n (count ports)
        _ (when (zero? n)
            (throw (IllegalArgumentException. "alts!! needs at least one channel operation, like [ch] or [[ch v]]")))
        _ (doseq [p ports]
            (when (and (vector? p) (nil? (nth p 1 nil)))
              (throw (IllegalArgumentException. (str "alts!!: cannot put nil on a channel: " (pr-str p))))))
        w (waiter)
        idxs (if priority (int-array (range n)) (shuffled-indexes n))
        ret (loop [i 0]
              (when (< i n)
                (let [port (nth ports (aget idxs i))
                      wport (when (vector? port) (nth port 0))
                      box (if wport
                            (impl/put! wport (nth port 1) (handler w wport))
                            (impl/take! port (handler w port)))]
                  (if box
                    [@box (or wport port)]
                    (recur (inc i))))))]
    (or ret
        (when (contains? opts :default)
          (.lock w)
          (let [got (and (impl/active? w) (impl/commit w))]
            (.unlock w)
            (when got [(:default opts) :default])))
        (park-on :alts (mapv #(if (vector? %) (nth % 0) %) ports) w))))

;; ---------------------------------------------------------------------------------------
;; Processes.

(defn- interrupt-like? [t]
  (or (instance? InterruptedException t)
      (instance? ClosedByInterruptException t)
      (instance? CancellationException t)))

(defn- cancelled-by? [^Scope scope t]
  (and (interrupt-like? t) (.isCancelled scope)))

(defn- uncaught! [^Throwable t]
  (let [thread (Thread/currentThread)]
    (.uncaughtException (.getUncaughtExceptionHandler thread) thread t)))

(defn- handled
  "The value `ex-handler` makes of `t`, or nil; without a handler, `t` goes to the thread's
  uncaught-exception handler. A handler that throws sends its own exception there."
  [ex-handler ^Throwable t]
  (if ex-handler
    (try (ex-handler t)
         (catch Throwable e
           (.addSuppressed e t)
           (uncaught! e)
           nil))
    (do (uncaught! t) nil)))

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
     (spawn-owned! "process-call" opts (name (:name opts "process"))
                   (fn [^Scope scope]
                     (try
                       (let [v (body)]
                         (when (some? v) (a/offer! c v))
                         (.increment completed-count))
                       (catch Throwable t
                         (if (cancelled-by? scope t)
                           (.increment cancelled-count)
                           (do (.increment failed-count)
                               (when-some [v (handled ex-handler t)]
                                 (a/offer! c v)))))))
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
;; Pipelines.
;;
;; Implementation overview. One dispatcher thread takes from `from` and one collector thread
;; puts to `to`, so the pipeline never has more than one pending op on a user's channel,
;; whatever n (core.async's channels allow 1,024 pending takes, which n workers all taking
;; from one channel exceed). The dispatcher takes a permit of a Semaphore(n) before each take
;; and starts one virtual thread per input (a process of the owning scope); the collector
;; gives the permit back once that input's outputs are delivered (or skipped), so at most n
;; inputs are between `from` and `to`: back-pressure, bounded memory. Ordered: the dispatcher
;; queues each input's slot as it takes it and the collector delivers slots in that order,
;; waiting for each. Unordered: each worker queues its slot when done. The dispatcher ends the
;; queue with the number of slots, so the collector knows when it has seen them all, and only
;; then closes `to` and the result channel: when the pipeline ends, every thread it started
;; has ended. Stopping (a failure without ex-handler, `to` closed, the scope cancelled) is one
;; atomic reason: ordered, an earlier failing input replaces a later one, so exactly the
;; outputs of the inputs before the first failing input are delivered. A worker stops itself
;; before it completes its slot, so the collector never delivers past a failure it has seen.

(deftype Slot [^long index input ^CompletableFuture result])
(deftype End [^long total])
(deftype Stop [kind ^long index error input])

(def ^:private skipped ::skipped)

(deftype Failed [error])

(defn- deliverable? [^Stop stop ordered? ^long index]
  (or (nil? stop)
      (and ordered? (identical? :failure (.-kind stop)) (< index (.-index stop)))))

(defn- outputs
  "Applies transducer `xf` to `input` alone, as core.async's pipeline does (a fresh
  reducing function per input, completed after the input), and returns the outputs.
  With `ex-handler`, an exception in either step goes to it and its non-nil value is
  one more output; without, or when `cancelled?` says the exception is a cancellation,
  it is thrown."
  ^List [xf ex-handler cancelled? input]
  (let [out (ArrayList.)
        add (fn
              ([acc] acc)
              ([acc x]
               (when (nil? x)
                 (throw (IllegalArgumentException.
                         (str "the pipeline's transducer produced nil for input " (pr-str input)
                              "; a channel cannot carry nil: drop it with (keep f) or (remove nil?)"))))
               (.add out x)
               acc))
        handle (fn [^Throwable t]
                 (if (and ex-handler (not (cancelled? t)))
                   (when-some [v (ex-handler t)] (.add out v))
                   (throw t)))
        rf (try (xf add) (catch Throwable t (handle t) nil))]
    (when rf
      (let [acc (try (rf nil input) (catch Throwable t (handle t) nil))]
        (try (rf (unreduced acc)) (catch Throwable t (handle t)))))
    out))

(defn- pipeline-label [pname]
  (if (= pname "pipeline") "pipeline" (str "pipeline " pname)))

(defn- failure-ex [pname ^Stop stop]
  (let [^Throwable e (.-error stop)]
    (ex-info (str (pipeline-label pname) ": input " (.-index stop) " failed (" (or (ex-message e) (.getName (class e)))
                  "), so the pipeline stopped: fail-fast; pass :ex-handler to turn failures into outputs and go on")
             {:weft.async/input (.-input stop) :weft.async/index (.-index stop)}
             e)))

(defn- emit-stop!
  "Commits a dev.weft.PipelineStop JFR event (how the pipeline stopped, inputs taken, outputs
  delivered) when a recording enables it; otherwise costs one check."
  [pname ^Stop s taken delivered]
  (when (PipelineStopEvent/isRecorded)
    (PipelineStopEvent/emit pname
                            (case (some-> s .-kind)
                              :failure (str "failed: " (.getName (class (.-error s))))
                              :cancelled "cancelled"
                              :to-closed "to closed"
                              nil "completed")
                            taken delivered)))

(defn- run-pipeline
  [n to xf from opts]
  (let [{:keys [close? ex-handler ordered?]} (merge {:close? true :ordered? true} opts)
        pname (name (:name opts "pipeline"))
        convey (wimpl/binding-conveyor)
        permits (Semaphore. (int n))
        q (LinkedBlockingQueue.)
        in-flight (ConcurrentHashMap.)
        stop (AtomicReference.)
        taken (AtomicLong.)       ; for the JFR event: inputs the dispatcher took
        delivered (AtomicLong.)   ; and outputs the collector put on `to`
        dispatcher (AtomicReference.)
        result (a/chan 1)
        scope-ref (AtomicReference.)
        ;; the dispatcher and the workers still running; when it reaches 0 it stays there,
        ;; because the dispatcher counts and only it starts workers
        others (AtomicLong.)
        others-ended (CompletableFuture.)
        other-ended! (fn [] (when (zero? (.decrementAndGet others)) (.complete others-ended true)))
        stop! (fn [^Stop reason]
                (loop []
                  (let [^Stop old (.get stop)]
                    (when (or (nil? old)
                              (and ordered? (identical? :failure (.-kind old)) (identical? :failure (.-kind reason))
                                   (< (.-index reason) (.-index old))))
                      (if (.compareAndSet stop old reason)
                        (let [self (Thread/currentThread)]
                          (when-let [^Thread d (.get dispatcher)]
                            (when-not (identical? d self) (.interrupt d)))
                          (doseq [[i ^Thread t] in-flight]
                            (when-not (or (identical? t self) (deliverable? reason ordered? i))
                              (.interrupt t))))
                        (recur))))))
        cancel! (fn [] (stop! (->Stop :cancelled -1 nil nil)))
        stopping? (fn [t] (and (interrupt-like? t)
                               (or (some? (.get stop)) (.isCancelled ^Scope (.get scope-ref)))))
        worker (fn [^Slot s]
                 (let [i (.-index s)]
                   (.put in-flight i (Thread/currentThread))
                   (let [outcome (try
                                   (if (deliverable? (.get stop) ordered? i)
                                     (outputs xf ex-handler stopping? (.-input s))
                                     skipped)
                                   (catch Throwable t
                                     (if (stopping? t)
                                       (do (cancel!) skipped)
                                       (do (stop! (->Stop :failure i t (.-input s)))
                                           (Failed. t)))))]
                     (.remove in-flight i)
                     (.complete ^CompletableFuture (.-result s) outcome)
                     (when-not ordered? (.offer q s)))))
        start-worker! (fn [^Scope scope ^Slot s]
                        (.incrementAndGet others)
                        (try
                          (spawn! scope pname (convey #(worker s)) other-ended!)
                          true
                          (catch Throwable t
                            (other-ended!)
                            (if (or (interrupt-like? t) (.isCancelled scope))
                              (cancel!)
                              (stop! (->Stop :failure (.-index s) t (.-input s))))
                            (.complete ^CompletableFuture (.-result s) skipped)
                            (when-not ordered? (.offer q s))
                            false)))
        dispatch (fn [^Scope scope]
                   (.set dispatcher (Thread/currentThread))
                   (let [total (long-array 1)]
                     (try
                       (loop [i 0]
                         (aset total 0 i)
                         (when (and (nil? (.get stop))
                                    (try (.acquire permits) true
                                         (catch InterruptedException _ (cancel!) false)))
                           (let [v (try (if (nil? (.get stop)) (<!! from) ::stopped)
                                        (catch InterruptedException _ (cancel!) ::stopped))]
                             (if (or (nil? v) (identical? v ::stopped) (some? (.get stop)))
                               (.release permits)
                               (let [s (Slot. i v (CompletableFuture.))]
                                 (when ordered? (.offer q s))
                                 (aset total 0 (inc i))
                                 (when (start-worker! scope s)
                                   (recur (inc i))))))))
                       (catch Throwable t
                         (if (.isCancelled scope)
                           (cancel!)
                           (stop! (->Stop :failure (aget total 0) t nil))))
                       (finally
                         (.set taken (aget total 0))
                         (.set dispatcher nil)
                         (.offer q (End. (aget total 0)))))))
        take-q (fn []
                 (loop []
                   (or (try (.take q) (catch InterruptedException _ (cancel!) nil))
                       (recur))))
        await-slot (fn [^Slot s]
                     (let [^CompletableFuture r (.-result s)]
                       (try (.get r)
                            (catch InterruptedException _ (cancel!) (.join r)))))
        ;; A scope interrupts its threads once: after the collector has seen that interrupt it
        ;; must never block on `to` again, so a cancelled scope delivers nothing more, even
        ;; the outputs before an earlier failure.
        deliverable-now? (fn [^Slot s]
                           (if (.isCancelled ^Scope (.get scope-ref))
                             (do (cancel!) false)
                             (deliverable? (.get stop) ordered? (.-index s))))
        deliver! (fn [^Slot s]
                   (let [outcome (await-slot s)]
                     (when (and (instance? List outcome) (deliverable-now? s))
                       (loop [[v & more] (seq outcome)]
                         (when (some? v)
                           (let [ok (try (>!! to v) (catch InterruptedException _ (cancel!) ::cancelled))]
                             (cond
                               (identical? ok ::cancelled) nil
                               (not ok) (stop! (->Stop :to-closed -1 nil nil))
                               :else (do (.incrementAndGet delivered) (recur more)))))))))
        finish! (fn []
                  (let [^Stop s (.get stop)]
                    (when close? (a/close! to))
                    (case (some-> s .-kind)
                      :failure (a/offer! result (failure-ex pname s))
                      :cancelled (a/offer! result (CancellationException.
                                                   (str (pipeline-label pname) " was cancelled: its scope ended (or its"
                                                        " threads were interrupted) before every input was delivered")))
                      nil)
                    (emit-stop! pname s (.get taken) (.get delivered))
                    (a/close! result)))
        collect (fn [_]
                  (loop [processed 0 total -1]
                    (when-not (== processed total)
                      (let [x (take-q)]
                        (if (instance? End x)
                          (recur processed (.-total ^End x))
                          (do (deliver! x)
                              (.release permits)
                              (recur (inc processed) total))))))
                  ;; the result closes only once no other thread of the pipeline is left
                  (.join others-ended))
        ;; finish! runs after the collector is unregistered: when the result closes, every
        ;; thread of the pipeline has finished
        scope (spawn-owned! "pipeline" opts (str pname "-out") (fn [s] ((convey #(collect s)))) finish!)]
    (.set scope-ref scope)
    (.incrementAndGet others)
    (try
      (spawn! scope (str pname "-in") (convey #(dispatch scope)) other-ended!)
      (catch Throwable t
        (other-ended!)
        (cancel!)
        (.offer q (End. 0))
        (throw t)))
    result))

(defn- check-pipeline-args! [n to xf from]
  (when-not (and (integer? n) (<= 1 n Integer/MAX_VALUE))
    (throw (IllegalArgumentException.
            (str "pipeline: n, the parallelism, must be a positive integer (at most " Integer/MAX_VALUE "); got " (pr-str n)))))
  (when-not (instance? clojure.core.async.impl.protocols.WritePort to)
    (throw (IllegalArgumentException. (str "pipeline: to must be a core.async channel; got " (pr-str to)))))
  (when-not (instance? clojure.core.async.impl.protocols.ReadPort from)
    (throw (IllegalArgumentException. (str "pipeline: from must be a core.async channel; got " (pr-str from)))))
  (when-not (ifn? xf)
    (throw (IllegalArgumentException.
            (str "pipeline: xf must be a transducer, like (map f) for a blocking function f; got " (pr-str xf))))))

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
     (check-pipeline-args! n to xf from)
     (run-pipeline (long n) to xf from (options/check pipeline-options opts))))
  ([n to xf from close? ex-handler]
   (pipeline n to xf from {:close? (boolean close?) :ex-handler ex-handler})))

(def ^{:arglists '([n to xf from] [n to xf from close?-or-opts] [n to xf from close? ex-handler])}
  pipeline-blocking
  "The same as `pipeline`: every weft pipeline runs on virtual threads, where blocking is
  cheap. Kept so that code moving from core.async's `pipeline-blocking` changes only its
  require."
  pipeline)

;; The positional factories deftype defines are implementation details, not API.
(doseq [v [#'->Proc #'->Root #'->Waiter #'->Deliver #'->Slot #'->End #'->Stop #'->Failed]]
  (alter-meta! v assoc :private true))

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
  (let [now (System/nanoTime)]
    (->> (.values live)
         (map #(.describe ^Proc % now))
         (sort-by :id)
         vec)))

(defn- own-frame?
  "True for a stack frame of the code that waits, not of the JDK, Clojure, core.async or weft.async."
  [^StackTraceElement e]
  (let [c (.getClassName e)]
    (not (or (.startsWith c "java.") (.startsWith c "jdk.") (.startsWith c "sun.")
             (.startsWith c "clojure.lang.") (.startsWith c "clojure.core$") (.startsWith c "clojure.core.async")
             (.startsWith c "weft.async$") (.startsWith c "weft.core$") (.startsWith c "dev.weft.")))))

(defn leak-report
  "The processes parked for at least `:threshold`, longest first, each
  as in `processes` plus `:stack`, its stack trace as strings, and `:at`, the first frame of
  the code that waits (outside the JDK, Clojure, core.async and weft). A process parked on
  a channel nobody will use again shows up here with the line that waits; end it by
  ending its scope (`stop-root!` for the root)."
  ([] (leak-report nil))
  ([opts]
   (let [threshold-ms (/ (.toNanos ^Duration (:threshold (options/check leak-report-options opts))) 1e6)
         now (System/nanoTime)]
     (->> (.values live)
          (keep (fn [^Proc p]
                  (let [d (.describe p now)]
                    (when (and (:parked-ms d) (>= (double (:parked-ms d)) (double threshold-ms)))
                      (let [stack (some-> (.runner p) .getStackTrace)]
                        (assoc d
                               :stack (mapv str stack)
                               :at (some->> stack (filter own-frame?) first str)))))))
          (sort-by :parked-ms >)
          vec))))

(defn- process-counts []
  {:running (.get running)
   :peak-running (.get peak-running)
   :started (.sum started-count)
   :completed (.sum completed-count)
   :failed (.sum failed-count)
   :cancelled (.sum cancelled-count)})

(defn thread-stats
  "Thread accounting now, what the article printed by hand: the scheduler and platform
  thread figures of `weft.core/scheduler-snapshot` (`:live-platform-threads`,
  `:peak-platform-threads`, `:mounted-virtual-threads`, ...), the calling thread's
  `:thread` name and whether it is `:virtual?`, and `:processes`: `:running`,
  `:peak-running` (since the JVM started or the last `measure-threads`), and how many
  `:started`, `:completed`, `:failed` and `:cancelled` (pipeline threads count as
  started, not as completed or failed)."
  []
  (assoc (core/scheduler-snapshot)
         :thread (.getName (Thread/currentThread))
         :virtual? (core/virtual-thread?)
         :processes (process-counts)))

(defn measure-threads
  "Calls `f` (no arguments) and returns what it used: `{:value (f) :wall-ms ...
  :peak-platform-threads ... :platform-threads-started ... :max-mounted-virtual-threads ...
  :processes-started ... :peak-processes ... :scheduler {...}}`, where `:scheduler` has the
  maxima of every sample (dev.weft.thread.SchedulerSamples). Platform threads are sampled
  every `:interval` by one platform thread, counted in the figures; the JVM's
  peak platform-thread count and the peak of running processes are reset at the start, so
  measurements running at the same time see each other's peaks."
  ([f] (measure-threads f nil))
  ([f opts]
   (.set peak-running (.get running))
   (let [^Duration interval (:interval (options/check measure-threads-options opts))
         before (.sum started-count)
         sampler (SchedulerSampler/start interval)
         t0 (System/nanoTime)
         value (try (f) (catch Throwable t (.stop sampler) (throw t)))
         wall (ms-since (System/nanoTime) t0)
         ^SchedulerSamples samples (.stop sampler)]
     {:value value
      :wall-ms wall
      :peak-platform-threads (.peakPlatformThreads samples)
      :platform-threads-started (.platformThreadsStarted samples)
      :max-mounted-virtual-threads (let [m (.maxMountedVirtualThreads samples)] (when (>= m 0) m))
      :processes-started (- (.sum started-count) before)
      :peak-processes (.get peak-running)
      :scheduler (into {} (map (fn [[k v]] [(keyword (.replace ^String k "_" "-")) v])) (.toMap samples))})))

(options/document! #'process-call process-options)
(options/document! #'pipeline pipeline-options)
(options/document! #'leak-report leak-report-options)
(options/document! #'measure-threads measure-threads-options)
