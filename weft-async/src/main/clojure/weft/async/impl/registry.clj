(ns ^:no-doc weft.async.impl.registry
  "Internal to weft.async: the registry of live processes, the counters behind `thread-stats`
  and `leak-report`, and ownership (the scope a process belongs to: the given one, the current
  one, or the process-wide root). Not part of weft's API: use weft.async."
  (:require [clojure.core.async :as a]
            [weft.impl :as wimpl])
  (:import (dev.weft.context Context ContextKey)
           (dev.weft.scope Scope)
           (java.nio.channels ClosedByInterruptException)
           (java.util.concurrent CancellationException CompletableFuture ConcurrentHashMap CountDownLatch)
           (java.util.concurrent.atomic AtomicLong AtomicReference LongAdder)
           (java.util.concurrent.locks ReentrantLock)))

(set! *warn-on-reflection* true)

;; ---------------------------------------------------------------------------------------
;; A process: what the registry knows about it.

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

(defn ms-since
  "Milliseconds from System/nanoTime `since` to `now`."
  ^double [^long now ^long since]
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

;; ---------------------------------------------------------------------------------------
;; The registry and its counters.

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

(defn current-process
  "The process the current thread runs, or nil."
  []
  (.get current-proc))

;; park!/unpark! rather than the interface in callers: a namespace compiled against IProc would
;; fail to cast to it once this one is reloaded (the test runner reloads every namespace).
(defn park!
  "Tells process `p` that it parks in op `op` (:take, :put, :alts) on channels `ports`."
  [^IProc p op ports]
  (.park p op ports))

(defn unpark!
  "Tells process `p` that it returned from the op it parked in."
  [^IProc p]
  (.unpark p))

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

(defn spawn!
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
  "weft.async/stop-root!: ends the root scope, if any, and waits for its owner, at most
  `timeout` (nil: without limit). True when it ended, or there was no root."
  [timeout]
  (if-let [^Root r (.getAndSet root nil)]
    (do (.countDown ^CountDownLatch (.-stop r))
        (if (some? timeout)
          (.join ^Thread (.-owner r) (wimpl/duration "stop-root! timeout" timeout))
          (do (.join ^Thread (.-owner r)) true)))
    true))

(defn spawn-owned!
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
;; How a process ends.

(defn interrupt-like?
  "True for the exceptions that an interrupt makes blocking code throw."
  [t]
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

(defn run-body
  "The body of a process of `scope`: calls `(body)` and offers its non-nil value to channel
  `c`, counting it completed; an exception is a cancellation when the scope's end caused it
  (counted, nothing offered), else a failure (counted), and `ex-handler`'s non-nil value of
  it is offered to `c`."
  [^Scope scope body ex-handler c]
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

;; ---------------------------------------------------------------------------------------
;; Accounting.

(defn processes
  "weft.async/processes: every live process described, oldest first."
  []
  (let [now (System/nanoTime)]
    (->> (.values live)
         (map #(.describe ^Proc % now))
         (sort-by :id)
         vec)))

(defn own-frame?
  "True for a stack frame of the code that waits, not of the JDK, Clojure, core.async or weft.async."
  [^StackTraceElement e]
  (let [c (.getClassName e)]
    (not (or (.startsWith c "java.") (.startsWith c "jdk.") (.startsWith c "sun.")
             (.startsWith c "clojure.lang.") (.startsWith c "clojure.core$") (.startsWith c "clojure.core.async")
             (.startsWith c "weft.async$") (.startsWith c "weft.async.impl.") (.startsWith c "weft.thread$") (.startsWith c "weft.core$")
             (.startsWith c "dev.weft.")))))

(defn parked-at-least
  "weft.async/leak-report: the processes parked for at least `threshold-ms`, longest first,
  with their stacks and the first frame of the code that waits."
  [threshold-ms]
  (let [now (System/nanoTime)]
    (->> (.values live)
         (keep (fn [^Proc p]
                 (let [d (.describe p now)]
                   (when (and (:parked-ms d) (>= (double (:parked-ms d)) (double threshold-ms)))
                     (let [stack (some-> (.runner p) .getStackTrace)]
                       (assoc d
                              :stack (mapv str stack)
                              :at (some->> stack (filter own-frame?) first str)))))))
         (sort-by :parked-ms >)
         vec)))

(defn counts
  "The process counters now: `:running`, `:peak-running`, `:started`, `:completed`, `:failed`,
  `:cancelled`."
  []
  {:running (.get running)
   :peak-running (.get peak-running)
   :started (.sum started-count)
   :completed (.sum completed-count)
   :failed (.sum failed-count)
   :cancelled (.sum cancelled-count)})

(defn started-total
  "How many processes have started since the JVM did."
  ^long []
  (.sum started-count))

(defn peak
  "The most processes running at once since the JVM started or the last `reset-peak!`."
  ^long []
  (.get peak-running))

(defn reset-peak!
  "Starts a new peak of running processes from the number running now."
  []
  (.set peak-running (.get running)))
