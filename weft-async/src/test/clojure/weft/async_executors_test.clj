(ns weft.async-executors-test
  "weft.async/executor-factory: core.async's executors on virtual threads, their options, the
  cap and its queue, context, accounting and stragglers. The executors are made here with
  executor-factory-of and driven directly; the same as core.async uses them, through
  -Dclojure.core.async.executor-factory in a JVM of its own, is weft.async-factory-jvm-test."
  (:require [clojure.core.async :as a]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [weft.async :as wa]
            [weft.context :refer [defcontext with-context]])
  (:import (dev.weft.clj InvalidOptionException)
           (java.util.concurrent CountDownLatch Executor ThreadPoolExecutor TimeUnit)
           (java.util.concurrent.atomic AtomicInteger)
           (java.util.function IntBinaryOperator)))

(set! *warn-on-reflection* true)

(defcontext tenant "Which tenant a test runs for.")

(defn- run-on
  "Runs `f` as a task of `executor` and returns a promise of its value (or of what it threw)."
  [^Executor executor f]
  (let [p (promise)]
    (.execute executor (fn [] (deliver p (try (f) (catch Throwable t t)))))
    p))

(defn- value [p]
  (deref p 10000 ::hang-guard))

(defn- this-thread []
  (let [t (Thread/currentThread)] [(.getName t) (.isVirtual t)]))

(deftest io-mixed-and-dispatch-run-on-named-virtual-threads-and-compute-on-platform-threads
  (let [factory (wa/executor-factory-of)]
    (doseq [[w prefix] {:io "async-io-" :mixed "async-mixed-" :core-async-dispatch "async-dispatch-"}]
      (let [[thread-name virtual?] (value (run-on (factory w) this-thread))]
        (is (str/starts-with? thread-name prefix) (str w " threads are " prefix "<n>: " thread-name))
        (is virtual? (str w " runs on a virtual thread"))))
    (let [[thread-name virtual?] (value (run-on (factory :compute) this-thread))]
      (is (str/starts-with? thread-name "async-compute-"))
      (is (not virtual?) ":compute stays on platform threads"))
    (is (identical? (factory :mixed) (factory :mixed)) "one executor per workload")
    (is (nil? (factory :gpu)) "an unknown workload gets core.async's default (nil), as core.async asks")))

(deftest the-workloads-not-listed-as-virtual-get-core-asyncs-own-executors
  (let [factory (wa/executor-factory-of {:virtual #{:io} :compute-threads 3})]
    (is (some? (factory :io)))
    (is (nil? (factory :mixed)))
    (is (nil? (factory :core-async-dispatch)))
    (is (= [false "async-compute-"] (let [[n v] (value (run-on (factory :compute) this-thread))] [v (subs n 0 14)])))))

(deftest tasks-carry-the-context-keys-of-whoever-handed-them-over-except-go-dispatch
  (let [factory (wa/executor-factory-of)
        seen (fn [w] (value (with-context [tenant "acme"] (run-on (factory w) #(deref tenant)))))]
    (is (= "acme" (seen :io)))
    (is (= "acme" (seen :mixed)))
    (is (= "acme" (seen :compute)))
    (is (nil? (seen :core-async-dispatch))
        "go-block dispatch is handed over by whoever completed a channel op: no context is conveyed"))
  (let [factory (wa/executor-factory-of {:context? false})]
    (is (nil? (value (with-context [tenant "acme"] (run-on (factory :mixed) #(deref tenant))))) ":context? false conveys nothing")))

(deftest a-cap-queues-the-tasks-beyond-it-in-order-and-starts-them-as-running-ones-end
  (let [factory (wa/executor-factory-of {:max-concurrency {:io 2}})
        ex (factory :io)
        release (CountDownLatch. 1)
        running (AtomicInteger.)
        most (AtomicInteger.)
        order (atom [])
        done (CountDownLatch. 6)]
    (dotimes [i 6]
      (.execute ^Executor ex
                (fn []
                  (let [r (.incrementAndGet running)]
                    (.accumulateAndGet most r (reify IntBinaryOperator (applyAsInt [_ a b] (Math/max a b)))) ; no fn-as-interface on Clojure 1.11
                    (swap! order conj i)
                    (.await release 10 TimeUnit/SECONDS)
                    (.decrementAndGet running)
                    (.countDown done)))))
    (loop [n 0] ; hang guard: wait until the first two run
      (when (and (< (.get running) 2) (< n 1000)) (Thread/sleep 10) (recur (inc n))))
    (is (= 2 (.get running)) "two run")
    (is (= 4 (get-in (wa/thread-stats) [:executors :io :queued])) "four wait in the queue")
    (.countDown release)
    (is (.await done 10 TimeUnit/SECONDS) "every queued task ran once room was made")
    (is (= 2 (.get most)) "never more than the cap at once")
    (is (= #{0 1} (set (subvec @order 0 2))) "the first two handed over ran first")
    (is (= (range 6) (sort @order)))
    (is (zero? (get-in (wa/thread-stats) [:executors :io :queued]))))
  (testing "with a cap of 1 the queue is first in, first out"
    (let [ex ((wa/executor-factory-of {:max-concurrency {:mixed 1}}) :mixed)
          order (atom [])
          done (CountDownLatch. 20)]
      (dotimes [i 20] (.execute ^Executor ex (fn [] (swap! order conj i) (.countDown done))))
      (is (.await done 10 TimeUnit/SECONDS))
      (is (= (vec (range 20)) @order)))))

(deftest thread-stats-counts-the-tasks-per-workload
  (loop [n 0] ; the earlier tests' :mixed tasks may still be ending (counted after they deliver): hang guard
    (when (and (pos? (get-in (wa/thread-stats) [:executors :mixed :running] 0)) (< n 1000))
      (Thread/sleep 10) (recur (inc n))))
  (let [factory (wa/executor-factory-of)
        before (get-in (wa/thread-stats) [:executors :mixed] {:started 0 :completed 0 :failed 0})
        handler (Thread/getDefaultUncaughtExceptionHandler)
        failed (promise)]
    (value (run-on (factory :mixed) (constantly :ok)))
    (try
      (Thread/setDefaultUncaughtExceptionHandler (reify Thread$UncaughtExceptionHandler
                                                   (uncaughtException [_ _ e] (deliver failed e))))
      (.execute ^Executor (factory :mixed) (fn [] (throw (ex-info "boom" {}))))
      (is (= "boom" (ex-message (deref failed 10000 nil))) "a task's exception reaches the uncaught-exception handler")
      (finally (Thread/setDefaultUncaughtExceptionHandler handler)))
    (let [after (loop [n 0]
                  (let [s (get-in (wa/thread-stats) [:executors :mixed])]
                    (if (or (and (= (:failed s) (inc (:failed before))) (zero? (:running s))) (> n 1000))
                      s
                      (do (Thread/sleep 10) (recur (inc n))))))]
      (is (= 2 (- (:started after) (:started before))))
      (is (= 1 (- (:completed after) (:completed before))))
      (is (= 1 (- (:failed after) (:failed before)))))))

(deftest a-task-parked-on-a-dropped-channel-is-a-straggler-with-the-line-that-waits
  (let [factory (wa/executor-factory-of)
        lost (a/chan)
        in-core-async (a/chan)
        started (CountDownLatch. 1)]
    (try
      (.execute ^Executor (factory :mixed) (fn [] (.countDown started) (a/<!! lost)))
      ;; core.async alone: the same wait on its own pool (this JVM runs without the factory)
      (a/thread (a/<!! in-core-async))
      (is (.await started 10 TimeUnit/SECONDS))
      (let [found (loop [n 0] ; the thread parks just after it starts: hang guard, not a timing
                    (let [s (wa/stragglers {:threshold 0})]
                      (if (or (seq s) (> n 1000)) s (do (Thread/sleep 10) (recur (inc n))))))
            s (first found)]
        (is (= 1 (count found)) "the factory's task is found; core.async's own thread is invisible to it")
        (is (= :mixed (:workload s)))
        (is (= :take (:op s)))
        (is (:virtual? s))
        (is (str/starts-with? (:thread s) "async-mixed-"))
        (is (str/includes? (str (:at s)) "weft.async_executors_test") (str "names the line that waits: " (:at s)))
        (is (some #(str/includes? % "CountDownLatch.await") (:stack s)) "the stack of the op it waits in")
        (is (= 1 (wa/straggler-count {:threshold 0})))
        (is (empty? (wa/stragglers {:threshold 60000})) "younger than the threshold: not a straggler"))
      (finally
        (a/close! lost)
        (a/close! in-core-async)))
    (loop [n 0] ; hang guard: the task ends once its channel closes
      (when (and (pos? (wa/straggler-count {:threshold 0})) (< n 1000)) (Thread/sleep 10) (recur (inc n))))
    (is (zero? (wa/straggler-count {:threshold 0})) "a task that ended is no longer registered")))

(deftest a-puts-and-alts-waits-are-named-too
  (let [factory (wa/executor-factory-of)
        c1 (a/chan) c2 (a/chan)]
    (try
      (.execute ^Executor (factory :io) (fn [] (a/>!! c1 :v)))
      (.execute ^Executor (factory :io) (fn [] (wa/alts!! [c2 (a/chan)])))
      (let [ops (loop [n 0]
                  (let [ops (set (map :op (wa/stragglers {:threshold 0})))]
                    (if (or (= 2 (count ops)) (> n 1000)) ops (do (Thread/sleep 10) (recur (inc n))))))]
        (is (= #{:put :alts} ops)))
      (finally (a/close! c1) (a/close! c2)))))

(deftest bad-options-name-the-problem-and-the-fix
  (is (thrown-with-msg? InvalidOptionException #":virtual must be a set of workloads"
                        (wa/executor-factory-of {:virtual #{:gpu}})))
  (is (thrown-with-msg? InvalidOptionException #":max-concurrency must be a map of workload to a positive integer"
                        (wa/executor-factory-of {:max-concurrency {:io 0}})))
  (is (thrown-with-msg? InvalidOptionException #"unknown option|:virtal"
                        (wa/executor-factory-of {:virtal #{:io}})))
  (is (thrown-with-msg? InvalidOptionException #":threshold must be"
                        (wa/stragglers {:threshold -1}))))

(deftest the-system-properties-are-checked-naming-the-property
  (let [read-with (fn [k v]
                    (let [old (System/getProperty k)]
                      (try (System/setProperty k v)
                           (#'weft.async.impl.executors/from-properties)
                           (finally (if old (System/setProperty k old) (System/clearProperty k))))))]
    (is (= #{:io :mixed} (:virtual (read-with "weft.async.executor.virtual" "io, mixed"))))
    (is (= {:io 500 :mixed 20} (:max-concurrency (read-with "weft.async.executor.max-concurrency" "io=500,mixed=20"))))
    (is (false? (:context? (read-with "weft.async.executor.context" "false"))))
    (is (thrown-with-msg? IllegalArgumentException #"-Dweft.async.executor.max-concurrency: .* \(as a property: io=500,mixed=200\)"
                          (read-with "weft.async.executor.max-concurrency" "io")))
    (is (thrown-with-msg? IllegalArgumentException #"-Dweft.async.executor.virtual: "
                          (read-with "weft.async.executor.virtual" "io,gpu")))
    (is (thrown-with-msg? IllegalArgumentException #"-Dweft.async.straggler-threshold: "
                          (read-with "weft.async.straggler-threshold" "soon")))))

(deftest compute-threads-are-sized-to-the-cores-and-end-when-idle
  (let [factory (wa/executor-factory-of {:compute-threads 2})
        gate (CountDownLatch. 1)
        names (atom #{})
        done (CountDownLatch. 4)]
    (dotimes [_ 4]
      (.execute ^Executor (factory :compute)
                (fn [] (swap! names conj (.getName (Thread/currentThread))) (.await gate 10 TimeUnit/SECONDS) (.countDown done))))
    (loop [n 0] ; hang guard
      (when (and (< (count @names) 2) (< n 1000)) (Thread/sleep 10) (recur (inc n))))
    (Thread/sleep 50)
    (is (= 2 (count @names)) "two threads, the other two tasks wait")
    (.countDown gate)
    (is (.await done 10 TimeUnit/SECONDS))
    (is (not (instance? ThreadPoolExecutor (factory :compute))) "a wrapper, so tasks are registered and counted")))
