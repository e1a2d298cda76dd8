(ns weft.async-pipeline-test
  "weft.async/pipeline: the contract of core.async's own pipeline tests (sizes, close?,
  ex-handler, expanding transducers, blocking, compute), then what weft adds: any n, the
  parallelism bound, unordered delivery, fail-fast, back-pressure with an endless input,
  context in every stage, scope ownership, and properties with random failures."
  (:require [clojure.core.async :as a]
            [clojure.test :refer [deftest is are testing]]
            [clojure.test.check.clojure-test :refer [defspec]]
            [clojure.test.check.generators :as gen]
            [clojure.test.check.properties :as prop]
            [weft.async :as wa]
            [weft.test-support :refer [within]]
            [weft.context :refer [defcontext with-context]]
            [weft.scope :refer [with-scope]])
  (:import (java.util.concurrent CancellationException CountDownLatch TimeUnit)
           (java.util.concurrent.atomic AtomicInteger AtomicLong)))

(defcontext tenant "Whose data a test pipeline transforms.")
(def ^:dynamic *dyn* :root)


(defn- drain
  "Every value of `ch` until it closes, as a vector (hang guard: :weft.test-support/timeout at the end)."
  [ch]
  (loop [acc []]
    (let [v (within ch)]
      (cond
        (nil? v) acc
        (= v :weft.test-support/timeout) (conj acc :weft.test-support/timeout)
        :else (recur (conj acc v))))))

(defn- tester
  "Runs `xs` through (pf n to xf from) and returns every output."
  [pf n xs xf]
  (let [from (a/to-chan! xs)
        to (a/chan 1)]
    (pf n to xf from)
    (drain to)))

(defn- await-latch [^CountDownLatch l]
  (.await l 20 TimeUnit/SECONDS))

(defn- pipeline-threads [pname]
  (filter #(re-matches (re-pattern (str pname "(-in|-out)?")) (:name %)) (wa/processes)))

;; ---------------------------------------------------------------------------------------
;; core.async's contract (clojure/core.async test/clojure/clojure/core/pipeline_test.clj)

(deftest sizes-keep-every-input-in-order
  (doseq [pf [wa/pipeline wa/pipeline-blocking]]
    (are [n size] (let [r (range size)] (= r (tester pf n r (map identity))))
      1 0
      1 10
      10 10
      20 10
      5 1000)))

(deftest close?-closes-to-or-leaves-it-open
  (doseq [pf [wa/pipeline wa/pipeline-blocking]]
    (let [to (a/chan 1)]
      (pf 5 to (map identity) (a/to-chan! [1]) true)
      (is (= 1 (within to)))
      (is (nil? (within to))))
    (doseq [close? [false nil]]
      (let [to (a/chan 1)]
        (pf 5 to (map identity) (a/to-chan! [1]) close?)
        (is (= 1 (within to)))
        (a/>!! to :more)
        (is (= :more (within to)) (str "to stays open with close? " (pr-str close?)))))
    (let [to (a/chan 1)]
      (pf 5 to (map identity) (a/to-chan! [1]) {:close? false})
      (is (= 1 (within to)))
      (is (true? (a/>!! to :more))))))

(deftest an-ex-handler-turns-a-failure-into-an-output
  (doseq [pf [wa/pipeline wa/pipeline-blocking]]
    (let [to (a/chan 1)
          errors (a/chan 1)
          xf (map (fn [x] (if (= x 3) (throw (ex-info "err" {:data x})) x)))
          done (pf 5 to xf (a/to-chan! [1 2 3 4]) true (fn [e] (a/>!! errors e) :err))]
      (is (= [1 2 :err 4] (drain to)))
      (is (= {:data 3} (ex-data (within errors))))
      (is (nil? (within done)) "the pipeline ended normally"))))

(deftest an-expanding-transducer-outputs-in-order
  (is (= [0 0 1 0 1 2 0 1 2 3] (tester wa/pipeline 2 (range 1 5) (mapcat range))))
  (testing "a fresh reducing function per input, completed after it"
    (is (= [[1] [2] [3]] (tester wa/pipeline 3 [1 2 3] (partition-all 2))))
    (is (= [[0 1] [2]] (tester wa/pipeline 3 [3] (comp (mapcat range) (partition-all 2)))))))

(deftest blocking-inputs-keep-their-order
  (let [times [600 50 300 100]]
    (is (= times (tester wa/pipeline-blocking 2 times (map #(do (Thread/sleep (long %)) %)))))))

(defn- slow-fib [n]
  (if (< n 2) n (+ (slow-fib (- n 1)) (slow-fib (- n 2)))))

(deftest computing-inputs-in-parallel
  (let [input (take 50 (cycle (range 15 28)))]
    (is (= (map slow-fib input) (tester wa/pipeline 8 input (map slow-fib))))))

;; ---------------------------------------------------------------------------------------
;; What weft adds

(deftest at-most-n-inputs-at-once-and-exactly-n-when-there-is-work
  (let [n 4
        active (AtomicInteger.)
        most (AtomicInteger.)
        first-n (CountDownLatch. n)
        xf (map (fn [x]
                  (let [now (.incrementAndGet active)]
                    ;; a reify, not `max`: fns become functional interfaces only from Clojure 1.12
                    (.accumulateAndGet most now (reify java.util.function.IntBinaryOperator
                                                  (applyAsInt [_ a b] (max a b))))
                    ;; the first n wait for each other: they can only all pass with n at once
                    (.countDown first-n)
                    (await-latch first-n)
                    (Thread/sleep 2)
                    (.decrementAndGet active)
                    x)))]
    (is (= (range 40) (tester wa/pipeline n (range 40) xf)))
    (is (= n (.get most)))))

(deftest any-n-runs-n-workers-at-once
  ;; core.async 1.9.865 with n = 5,000 loses every worker past 1,024 pending takes on its jobs channel
  (let [n 5000
        all-in (CountDownLatch. n)
        out (tester wa/pipeline n (range n) (map (fn [x] (.countDown all-in) (await-latch all-in) x)))]
    (is (zero? (.getCount all-in)) "all n were transforming their input at the same time")
    (is (= (range n) out))))

(deftest unordered-delivers-outputs-as-they-are-ready
  (let [first-out (promise)
        xf (map (fn [x]
                  (when (zero? x) (deref first-out 20000 nil))   ; 0 waits until 1 is out
                  x))
        to (a/chan 1)
        done (wa/pipeline 2 to xf (a/to-chan! [0 1]) {:ordered? false})
        one (within to)]
    (deliver first-out one)
    (is (= 1 one))
    (is (= 0 (within to)))
    (is (nil? (within to)))
    (is (nil? (within done)))))

(deftest fail-fast-delivers-the-prefix-then-stops
  (let [interrupted (CountDownLatch. 1)
        later-started (CountDownLatch. 1)
        xf (map (fn [x]
                  (case (long x)
                    3 (do (await-latch later-started) (throw (ex-info "three" {})))
                    5 (do (.countDown later-started)
                          (try (Thread/sleep 600000)
                               (catch InterruptedException e (.countDown interrupted) (throw e))))
                    x)))
        to (a/chan 1)
        done (wa/pipeline 8 to xf (a/to-chan! (range 10)))]
    (is (= [0 1 2] (drain to)) "exactly the outputs before the failing input; then to closes")
    (let [e (within done)]
      (is (instance? clojure.lang.ExceptionInfo e))
      (is (= 3 (:weft.async/index (ex-data e))))
      (is (= "three" (ex-message (ex-cause e))))
      (is (re-find #"fail-fast; pass :ex-handler" (ex-message e))))
    (is (nil? (within done)) "then the result channel closes")
    (is (await-latch interrupted) "the later input being transformed was interrupted"))
  (testing "close? false leaves to open after a failure"
    (let [to (a/chan 10)
          done (wa/pipeline 1 to (map #(if (= % 1) (throw (ex-info "one" {})) %)) (a/to-chan! [0 1 2]) {:close? false})]
      (is (instance? clojure.lang.ExceptionInfo (within done)))
      (is (= 0 (within to)))
      (is (true? (a/>!! to :open))))))

(deftest nil-outputs-are-a-failure-that-names-the-fix
  (let [done (wa/pipeline 1 (a/chan 1) (map (constantly nil)) (a/to-chan! [1]))]
    (is (re-find #"produced nil for input 1; a channel cannot carry nil: drop it with \(keep f\)"
                 (ex-message (ex-cause (within done))))))
  (is (= [2] (tester wa/pipeline 2 [1 2] (keep #(when (even? %) %))))))

(defn- endless-source
  "A channel fed forever by a process of the current scope; `taken` counts the values the
  consumer side took from it."
  [^AtomicLong taken]
  (let [from (a/chan)]
    (wa/process (loop [i 0]
                  (when (wa/>!! from i)
                    (.incrementAndGet taken)
                    (recur (inc i)))))
    from))

(deftest an-endless-input-is-held-back-by-a-slow-consumer
  (let [n 8
        taken (AtomicLong.)
        pname (str "bounded" (System/nanoTime))]
    (with-scope [_]
      (let [from (endless-source taken)
            to (a/chan)
            done (wa/pipeline n to (map inc) from {:name pname})]
        (dotimes [i 50]
          (is (= (inc i) (within to))))
        ;; the pipeline may take one input per permit it holds, plus one held by the dispatcher
        (Thread/sleep 50)
        (is (<= (.get taken) (+ 50 n 1)) (str "taken " (.get taken) " for 50 delivered"))
        (testing "closing to stops the pipeline taking from from"
          (a/close! to)
          ;; as for any core.async put, the one already waiting on to completes when taken
          (is (>= 1 (count (drain to))))
          (is (nil? (within done)) "it ends without an error")
          (let [t (.get taken)]
            (Thread/sleep 50)
            (is (= t (.get taken)) "nothing more is taken")))
        (is (empty? (pipeline-threads pname)) "its threads have ended")))))

(deftest context-keys-reach-every-stage
  (with-scope [_]
    (with-context [tenant "acme"]
      (binding [*dyn* :bound]
        (let [from (a/to-chan! (range 20))
              mid (a/chan 4)
              to (a/chan 4)]
          (wa/pipeline 3 mid (map (fn [x] [x @tenant *dyn*])) from)
          (wa/pipeline 3 to (map (fn [v] (conj v @tenant))) mid {:ordered? false})
          (let [out (drain to)]
            (is (= (set (for [x (range 20)] [x "acme" :bound "acme"])) (set out)))
            (is (= 20 (count out)))))))))

(deftest a-pipeline-ends-with-its-scope
  (let [pname (str "owned" (System/nanoTime))
        started (CountDownLatch. 3)
        done (atom nil)]
    (with-scope [_]
      (let [to (a/chan)
            d (wa/pipeline 3 to (map (fn [x] (.countDown started) (Thread/sleep 600000) x)) (a/to-chan! (range 100)) {:name pname})]
        (await-latch started)
        (is (= 5 (count (pipeline-threads pname))) "a taker, a putter, and three workers")
        (reset! done [d to])))
    (let [[d to] @done]
      (is (empty? (pipeline-threads pname)) "the scope's end interrupted and awaited them")
      (is (instance? CancellationException (within d)))
      (is (nil? (within to)) "to was closed"))))

(deftest bad-arguments-are-clear-errors
  (let [c (a/chan)]
    (is (thrown-with-msg? IllegalArgumentException #"n, the parallelism, must be a positive integer" (wa/pipeline 0 c (map inc) c)))
    (is (thrown-with-msg? IllegalArgumentException #"must be a positive integer" (wa/pipeline 1.5 c (map inc) c)))
    (is (thrown-with-msg? IllegalArgumentException #"to must be a core.async channel" (wa/pipeline 1 [] (map inc) c)))
    (is (thrown-with-msg? IllegalArgumentException #"from must be a core.async channel" (wa/pipeline 1 c (map inc) [1 2])))
    (is (thrown-with-msg? IllegalArgumentException #"xf must be a transducer, like \(map f\)" (wa/pipeline 1 c nil c)))
    (is (thrown-with-msg? IllegalArgumentException #"weft.async/pipeline: unknown option :order \(did you mean :ordered\?\?\)" (wa/pipeline 1 c (map inc) c {:order false})))))

;; ---------------------------------------------------------------------------------------
;; Properties with random failures

(def ^:private gen-run
  (gen/hash-map
   :inputs (gen/vector gen/small-integer 0 60)
   :n (gen/choose 1 16)
   :fail-every (gen/choose 0 7)          ; 0: nothing fails; k: inputs at multiples of k fail
   :sleepy gen/boolean
   :ordered? gen/boolean))

(defn- run-random
  "Runs a random pipeline; returns [outputs result-value inputs-that-fail threads-left]."
  [{:keys [inputs n fail-every sleepy ordered?]} ex-handler]
  (let [pname (str "prop" (System/nanoTime))
        indexed (map-indexed vector inputs)
        fails? (fn [i] (and (pos? fail-every) (zero? (mod i fail-every)) (pos? i)))
        xf (map (fn [[i x]]
                  (when sleepy (Thread/sleep (long (rand-int 3))))
                  (if (fails? i) (throw (ex-info "random" {:i i})) [i x])))
        to (let [b (rand-int 3)] (if (zero? b) (a/chan) (a/chan b)))
        done (wa/pipeline n to xf (a/to-chan! indexed)
                          (cond-> {:ordered? ordered? :name pname} ex-handler (assoc :ex-handler ex-handler)))
        outs (drain to)
        result (within done)]
    [outs result (filter fails? (range (count inputs))) (count (pipeline-threads pname))]))

(defspec with-an-ex-handler-every-input-comes-out-once 100
  (prop/for-all [run gen-run]
    (let [[outs result _ left] (run-random run (fn [e] [:err (:i (ex-data e))]))
          expected (map-indexed (fn [i x] (if (and (pos? (:fail-every run)) (pos? i) (zero? (mod i (:fail-every run))))
                                            [:err i]
                                            [i x]))
                                (:inputs run))]
      (and (nil? result)
           (zero? left)
           (if (:ordered? run)
             (= expected outs)
             (and (= (count expected) (count outs)) (= (frequencies expected) (frequencies outs))))))))

(defspec fail-fast-loses-nothing-before-the-first-failure-and-duplicates-nothing 100
  (prop/for-all [run gen-run]
    (let [[outs result failing left] (run-random run nil)
          inputs (:inputs run)
          first-failure (first failing)
          successes (set (keep-indexed (fn [i x] (when-not (some #{i} failing) [i x])) inputs))]
      (and (zero? left)
           (= (count outs) (count (distinct outs)))
           (if first-failure
             (and (instance? clojure.lang.ExceptionInfo result)
                  (if (:ordered? run)
                    (and (= (map-indexed vector (take first-failure inputs)) outs)
                         (= first-failure (:weft.async/index (ex-data result))))
                    (every? successes outs)))
             (and (nil? result)
                  (if (:ordered? run)
                    (= (map-indexed vector inputs) outs)
                    (= (set (map-indexed vector inputs)) (set outs)))))))))

(defspec no-pipeline-thread-outlives-its-scope 50
  ;; The scope ends after the consumer took `k` outputs, wherever the pipeline is.
  (prop/for-all [size (gen/choose 0 40)
                 k (gen/choose 0 40)
                 n (gen/choose 1 12)
                 ordered? gen/boolean]
    (let [pname (str "scoped" (System/nanoTime))
          seen (with-scope [_]
                 (let [to (a/chan)
                       done (wa/pipeline n to (map (fn [x] (Thread/sleep (long (rand-int 2))) x)) (a/to-chan! (range size))
                                         {:ordered? ordered? :name pname})]
                   [(vec (keep (fn [_] (within to)) (range (min k size)))) done]))
          [taken done] seen
          ended-with (within done)]
      (and (empty? (pipeline-threads pname))
           (or (nil? ended-with) (instance? CancellationException ended-with))
           (if ordered? (= (range (count taken)) taken) (apply distinct? ::none taken))))))
