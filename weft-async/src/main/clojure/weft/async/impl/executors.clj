(ns ^:no-doc weft.async.impl.executors
  "Internal to weft.async: the executors weft.async/executor-factory gives core.async, their
  options (a map, or system properties read once), the cap on tasks in flight with its queue,
  and the periodic straggler report. Not part of weft's API: use weft.async.

  Nothing here starts core.async work: core.async calls the factory from inside its first
  dispatch (clojure.core.async.impl.dispatch/executor-for), and a dispatch made while that
  call loads or builds would re-enter it."
  (:require [clojure.string :as str]
            [weft.async.impl.tasks :as tasks]
            [weft.impl.options :as options])
  (:import (dev.weft.context Context)
           (java.lang System$Logger System$Logger$Level)
           (java.time Duration)
           (java.util.concurrent ConcurrentLinkedQueue Executor LinkedBlockingQueue ThreadFactory
                                 ThreadPoolExecutor TimeUnit)
           (java.util.concurrent.atomic AtomicInteger)))

(set! *warn-on-reflection* true)

;; ---------------------------------------------------------------------------------------
;; Options.

(def workloads
  "core.async 1.9.865's workloads, in the order its docs list them."
  [:io :mixed :compute :core-async-dispatch])

(def thread-prefix
  "Thread names per workload, `<prefix><n>`: core.async's own `async-<workload>-` names, so a
  thread dump reads the same with and without the factory."
  {:io "async-io-" :mixed "async-mixed-" :compute "async-compute-" :core-async-dispatch "async-dispatch-"})

(defn- workload-set? [x]
  (and (coll? x) (every? (set workloads) x)))

(defn- caps? [x]
  (and (map? x) (every? (set workloads) (keys x))
       (every? #(and (integer? %) (<= 1 % Integer/MAX_VALUE)) (vals x))))

(def spec
  (options/spec
   "weft.async/executor-factory-of"
   [{:key :virtual :default #{:io :mixed :core-async-dispatch}
     :valid? workload-set? :must-be (str "a set of workloads, of " (str/join " " workloads))
     :coerce set
     :doc "the workloads run on virtual threads (one per task); the others get core.async's own executor, except :compute (see :compute-threads)"}
    {:key :max-concurrency :default {}
     :valid? caps? :must-be "a map of workload to a positive integer, like {:mixed 200}"
     :doc (str "a cap on the tasks of a virtual workload running at once; beyond it tasks wait in a queue, in order."
               " Tasks that wait for each other (one puts, another takes) deadlock once the cap is full of waiters:"
               " cap only work that never waits on work of the same workload (never :core-async-dispatch when go blocks block)")}
    {:key :compute-threads :type :pos-int :default-doc "the number of cores"
     :doc ":compute's platform threads, when :compute is not virtual (idle ones end after 60 s)"}
    {:key :context? :default true :nilable? false :valid? boolean? :must-be "true or false"
     :doc (str "run each :io, :mixed and :compute task with the context keys (weft.context) bound where core.async handed it over;"
               " go-block dispatch (:core-async-dispatch) never conveys them, as the hand-over is whoever completed a channel op")}
    {:key :straggler-threshold :type :duration :default 10000
     :doc "a task parked in a channel op that has run this long is a straggler (weft.async/stragglers, straggler-count)"}
    {:key :straggler-report :type :duration :default-doc "off"
     :doc "log new stragglers this often (System.Logger \"weft.async\", WARNING), each once, with a JFR event"}]
   {:example "{:virtual #{:io :mixed} :max-concurrency {:io 500}}"}))

(def properties
  "The system property of each option, for -Dclojure.core.async.executor-factory=weft.async/executor-factory."
  {:virtual "weft.async.executor.virtual"
   :max-concurrency "weft.async.executor.max-concurrency"
   :compute-threads "weft.async.executor.compute-threads"
   :context? "weft.async.executor.context"
   :straggler-threshold "weft.async.straggler-threshold"
   :straggler-report "weft.async.straggler-report"})

(defn- parse-property
  "The value of option `k` from its system property's text `s`; a text that does not parse is
  left as text, so that options/check rejects it naming the property's option."
  [k ^String s]
  (let [s (str/trim s)
        kw #(keyword (str/replace (str/trim %) #"^:" ""))
        num #(try (Long/parseLong (str/trim %)) (catch NumberFormatException _ s))]
    (case k
      :virtual (if (str/blank? s) #{} (set (map kw (str/split s #","))))
      :max-concurrency (let [pairs (map #(str/split % #"=" 2) (remove str/blank? (str/split s #",")))]
                         (if (every? #(= 2 (count %)) pairs)
                           (into {} (map (fn [[w n]] [(kw w) (num n)])) pairs)
                           s))
      :context? (case s "true" true "false" false s)
      (:compute-threads :straggler-threshold :straggler-report) (num s))))

(defn from-properties
  "The options set by system properties (see `properties`), checked; properties not set take the
  defaults. An error names the property."
  []
  (let [given (into {} (keep (fn [[k p]] (when-some [v (System/getProperty p)] [k (parse-property k v)])))
                    properties)]
    (try
      (options/check spec given)
      (catch IllegalArgumentException e
        (let [k (:option (ex-data e))]
          (throw (IllegalArgumentException.
                  (str (if k (str "-D" (properties k) ": ") "") (ex-message e)
                       (when (= k :max-concurrency) " (as a property: io=500,mixed=200)")
                       (when (= k :virtual) " (as a property: io,mixed,core-async-dispatch)"))
                  e)))))))

;; ---------------------------------------------------------------------------------------
;; Executors.

(defn- task-fn
  "`r` as run on a thread of `workload`: registered and counted, with the context keys captured
  now when `convey?`."
  ^Runnable [workload convey? ^Runnable r]
  (let [r (if convey? (Context/wrap r) r)]
    (fn [] (tasks/run-task workload r))))

(defn- virtual-executor
  "One new virtual thread per task, named `async-<workload>-<n>`."
  ^Executor [workload convey?]
  (let [^ThreadFactory f (-> (Thread/ofVirtual) (.name ^String (thread-prefix workload) 1) (.factory))]
    (reify Executor
      (execute [_ r]
        (.start (.newThread f (task-fn workload convey? r))))
      Object
      (toString [_] (str "weft virtual-thread executor for core.async's " workload)))))

(defn- capped-executor
  "At most `cap` tasks of `workload` running at once on virtual threads; the rest wait in a FIFO
  queue and start as running ones end. A task is counted from its `execute` to its end, so the cap
  holds whatever the order of starts and ends."
  ^Executor [workload convey? ^long cap]
  (let [^ThreadFactory f (-> (Thread/ofVirtual) (.name ^String (thread-prefix workload) 1) (.factory))
        queue (ConcurrentLinkedQueue.)
        in-flight (AtomicInteger.)]
    (letfn [(drain []
              ;; Start queued tasks while there is room. A task that ends calls this again, and
              ;; so does every execute, so a queued task never waits for room that is free.
              (loop []
                (let [n (.get in-flight)]
                  (when (and (< n cap) (not (.isEmpty queue)) (.compareAndSet in-flight n (inc n)))
                    (if-let [^Runnable r (.poll queue)]
                      (do (tasks/queued! workload -1)
                          (.start (.newThread f (fn [] (try (.run r) (finally (.decrementAndGet in-flight) (drain)))))))
                      (.decrementAndGet in-flight))
                    (recur)))))]
      (reify Executor
        (execute [_ r]
          (tasks/queued! workload 1)
          (.offer queue (task-fn workload convey? r))
          (drain))
        Object
        (toString [_] (str "weft virtual-thread executor for core.async's " workload ", at most " cap " at once"))))))

(defn- compute-executor
  "`n` daemon platform threads named `async-compute-<n>` (idle ones end after 60 s) and an
  unbounded queue: :compute work must not block, so the cores are its ceiling."
  ^Executor [convey? n]
  (let [^ThreadFactory f (-> (Thread/ofPlatform) (.name ^String (thread-prefix :compute) 1) (.daemon true) (.factory))
        pool (doto (ThreadPoolExecutor. (int n) (int n) 60 TimeUnit/SECONDS (LinkedBlockingQueue.) f)
               (.allowCoreThreadTimeOut true))]
    (reify Executor
      (execute [_ r] (.execute pool (task-fn :compute convey? r)))
      Object
      (toString [_] (str "weft platform executor for core.async's :compute, " n " threads")))))

(defn executor-for
  "The executor for `workload` under options `opts` (checked), or nil for core.async's own."
  ^Executor [opts workload]
  (let [{:keys [virtual max-concurrency compute-threads context?]} opts
        convey? (and context? (not= workload :core-async-dispatch))]
    (cond
      (contains? virtual workload) (if-let [cap (get max-concurrency workload)]
                                     (capped-executor workload convey? cap)
                                     (virtual-executor workload convey?))
      (= workload :compute) (compute-executor convey? (or compute-threads (.availableProcessors (Runtime/getRuntime))))
      :else nil)))

;; ---------------------------------------------------------------------------------------
;; The straggler report.

(defn threshold-ms
  "The straggler threshold of checked options `opts`, in milliseconds."
  ^double [opts]
  (/ (.toNanos ^Duration (:straggler-threshold opts)) 1e6))

(defn start-report!
  "When `opts` has :straggler-report, starts a virtual thread (weft-async-stragglers) that logs
  new stragglers that often; it runs as long as the JVM (a daemon)."
  [opts]
  (when-let [^Duration every (:straggler-report opts)]
    (let [^System$Logger logger (System/getLogger "weft.async")
          millis (max 1 (.toMillis every))]
      (-> (Thread/ofVirtual)
          (.name "weft-async-stragglers")
          (.start (fn []
                    (loop []
                      (when (try (Thread/sleep millis) true (catch InterruptedException _ false))
                        (try (tasks/stragglers (threshold-ms opts) logger)
                             (catch Throwable t
                               (.log logger System$Logger$Level/ERROR "the core.async straggler report failed" t)))
                        (recur)))))))))

