(ns ^:no-doc weft.async.impl.tasks
  "Internal to weft.async: the registry of the tasks core.async runs on weft's executor factory,
  the counters behind `thread-stats`' :executors, and the stragglers (tasks parked in a channel
  operation for longer than a threshold) with their report and JFR event. Not part of weft's API:
  use weft.async.

  A task is registered when its thread starts running it and removed when it ends, so the
  registry never keeps a finished task (or its thread) alive; a live task holds its thread,
  which the JDK holds anyway while it runs."
  (:require [clojure.core.async :as a]
            [clojure.string :as str]
            [weft.async.impl.ops :as ops]
            [weft.async.impl.registry :as registry])
  (:import (dev.weft.async StragglerEvent)
           (java.lang System$Logger System$Logger$Level)
           (java.util.concurrent ConcurrentHashMap)
           (java.util.concurrent.atomic AtomicBoolean AtomicLong LongAdder)))

(set! *warn-on-reflection* true)

;; ---------------------------------------------------------------------------------------
;; Tasks and counters.

(deftype Task [^long id workload ^Thread thread ^long started-at
               ^AtomicBoolean reported]   ; its JFR event and report line are out
  Object
  (toString [_] (str "task " id " " (name workload) " on " (.getName thread))))

(defn- mark-reported!
  "True the first time `t` is marked, false after (one JFR event and one log line per task)."
  [^Task t]
  (.compareAndSet ^AtomicBoolean (.-reported t) false true))

(defonce ^:private ^AtomicLong next-id (AtomicLong.))
(defonce ^:private ^ConcurrentHashMap live (ConcurrentHashMap.))

(deftype Counters [^AtomicLong running ^AtomicLong queued ^LongAdder started ^LongAdder completed ^LongAdder failed])

(defonce ^:private ^ConcurrentHashMap counters (ConcurrentHashMap.))

(defn counters-of
  "The counters of `workload`, made on first use."
  ^Counters [workload]
  (.computeIfAbsent counters workload
                    (reify java.util.function.Function
                      (apply [_ _] (Counters. (AtomicLong.) (AtomicLong.) (LongAdder.) (LongAdder.) (LongAdder.))))))

(defn queued!
  "Counts a task of `workload` queued behind its cap (+1) or taken off the queue (-1)."
  [workload ^long delta]
  (.addAndGet ^AtomicLong (.-queued (counters-of workload)) delta))

(defn run-task
  "Runs `r` (a Runnable) in the current thread as a task of `workload`: registered while it runs,
  counted started, then completed or failed. A Throwable is counted and rethrown, so it reaches the
  thread's uncaught-exception handler as it would on core.async's own pools."
  [workload ^Runnable r]
  (let [c (counters-of workload)
        t (Task. (.incrementAndGet next-id) workload (Thread/currentThread) (System/nanoTime) (AtomicBoolean.))]
    (.increment ^LongAdder (.-started c))
    (.incrementAndGet ^AtomicLong (.-running c))
    (.put live (.-id t) t)
    (try
      (.run r)
      (.increment ^LongAdder (.-completed c))
      (catch Throwable e
        (.increment ^LongAdder (.-failed c))
        (throw e))
      (finally
        (.remove live (.-id t))
        (.decrementAndGet ^AtomicLong (.-running c))))))

(defn counts
  "{workload {:running :queued :started :completed :failed}} for every workload that ran a task."
  []
  (into (sorted-map)
        (map (fn [[w ^Counters c]]
               [w {:running (.get ^AtomicLong (.-running c))
                   :queued (.get ^AtomicLong (.-queued c))
                   :started (.sum ^LongAdder (.-started c))
                   :completed (.sum ^LongAdder (.-completed c))
                   :failed (.sum ^LongAdder (.-failed c))}]))
        counters))

;; ---------------------------------------------------------------------------------------
;; Where a task waits.

(def ^:private op-classes
  "The class of each blocking channel op's function, by class name: core.async defines `<!!`,
  `>!!` and `alts!!` as anonymous fns (their frames read `clojure.core.async$fn__924`), so the
  class of the var's value, not a name, says which op a frame is."
  (delay
    (into {}
          (map (fn [[f op]] [(.getName (class f)) op]))
          [[a/<!! :take] [a/>!! :put] [a/alts!! :alts]
           [ops/take!! :take] [ops/put!! :put] [ops/alts!! :alts]])))

(defn- waiting-op
  "The channel op (:take, :put, :alts) that a thread with `stack` waits in, or nil: the innermost
  frame of one of the blocking ops, when the thread is parked."
  [stack]
  (let [ops @op-classes]
    (some (fn [^StackTraceElement e] (get ops (.getClassName e))) stack)))

(defn- parked? [^Thread t]
  (contains? #{Thread$State/WAITING Thread$State/TIMED_WAITING Thread$State/BLOCKED} (.getState t)))

(defn- describe
  "Task `t` as a straggler when it has run `threshold-ms` or more and is parked in a channel op
  now, else nil."
  [^Task t ^long now threshold-ms]
  (let [age (registry/ms-since now (.-started-at t))
        ^Thread thread (.-thread t)]
    (when (and (>= age (double threshold-ms)) (parked? thread))
      (let [stack (.getStackTrace thread)]
        (when-let [op (waiting-op stack)]
          {:id (.-id t)
           :workload (.-workload t)
           :thread (.getName thread)
           :virtual? (.isVirtual thread)
           :op op
           :age-ms age
           :at (some->> stack (filter registry/own-frame?) first str)
           :stack (mapv str stack)
           ::task t})))))

(defn- report-once!
  "Commits a StragglerEvent for straggler `s` and logs it on `logger` (when given), once per task."
  [s ^System$Logger logger]
  (when (mark-reported! (::task s))
    (StragglerEvent/emit (:thread s) (name (:workload s)) (name (:op s)) (long (:age-ms s)) (:at s)
                         (str/join "\n" (:stack s)))
    (when logger
      (.log logger System$Logger$Level/WARNING
            (str "core.async straggler: " (:thread s) " (" (name (:workload s)) ") has waited in "
                 (name (:op s)) " for " (long (/ (double (:age-ms s)) 1000)) " s or more, at "
                 (or (:at s) "an unknown frame") "; its stack:\n  " (str/join "\n  " (take 30 (:stack s))))))))

(defn stragglers
  "weft.async/stragglers: the tasks that have run `threshold-ms` or more and are parked in a
  channel op now, oldest first; each new one gets its JFR event (and, with `logger`, a log line)."
  ([threshold-ms] (stragglers threshold-ms nil))
  ([threshold-ms logger]
   (let [now (System/nanoTime)
         found (->> (.values live)
                    (keep #(describe % now threshold-ms))
                    (sort-by :age-ms >))]
     (mapv (fn [s] (report-once! s logger) (dissoc s ::task)) found))))

(defn straggler-count
  "How many tasks have run `threshold-ms` or more and are parked in a channel op now."
  ^long [threshold-ms]
  (let [now (System/nanoTime)]
    (count (keep #(describe % now threshold-ms) (.values live)))))
