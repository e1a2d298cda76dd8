(ns weft.async-test
  "Processes, their ownership, the interrupt-safe channel ops, the leak report and thread
  accounting. Pipelines: weft.async-pipeline-test."
  (:require [clojure.core.async :as a]
            [clojure.test :refer [deftest is testing]]
            [clojure.test.check.clojure-test :refer [defspec]]
            [clojure.test.check.generators :as gen]
            [clojure.test.check.properties :as prop]
            [weft.async :as wa]
            [weft.impl.options :as options]
            [weft.test-support :refer [within]]
            [weft.context :refer [defcontext with-context]]
            [weft.thread :as w]
            [weft.scope :as s :refer [with-scope]])
  (:import (java.util.concurrent CancellationException CountDownLatch TimeUnit)
           (java.util.concurrent.atomic AtomicInteger)))

(defcontext request-id "Which request a test runs for.")
(def ^:dynamic *dyn* :root)


(defn- live-ids []
  (set (map :id (wa/processes))))

(defn- await-latch [^CountDownLatch l]
  (is (.await l 10 TimeUnit/SECONDS) "hang guard"))

(defn- wait-until
  "Polls `pred` until true (hang guard 10 s); returns its last value."
  [pred]
  (loop [i 0]
    (or (pred)
        (when (< i 1000)
          (Thread/sleep 10)
          (recur (inc i))))))

;; ---------------------------------------------------------------------------------------
;; Processes

(deftest a-process-returns-a-channel-with-its-value-like-go
  (with-scope [_]
    (is (= 3 (within (wa/process (+ 1 2)))))
    (let [[virtual? thread-name] (within (wa/process [(w/virtual-thread?) (.getName (Thread/currentThread))]))]
      (is (true? virtual?))
      (is (re-matches #"weft-process-\d+" thread-name)))
    (is (re-matches #"weft-fetch-\d+" (within (wa/process-call #(.getName (Thread/currentThread)) {:name "fetch"}))))
    (let [c (wa/process nil)]
      (is (nil? (within c)) "nil closes the channel without a value")
      (is (a/>!! (a/chan 1) 1))
      (is (nil? (a/poll! c))))
    (testing "the body may block on channels and sleep"
      (let [in (a/chan)
            p (wa/process (Thread/sleep 5) (inc (wa/<!! in)))]
        (wa/>!! in 41)
        (is (= 42 (within p)))))))

(deftest exceptions-go-to-the-ex-handler-or-the-uncaught-handler
  (with-scope [_]
    (testing "an ex-handler's value goes on the channel"
      (is (= [:handled "boom"]
             (within (wa/process-call #(throw (ex-info "boom" {}))
                                      {:ex-handler (fn [e] [:handled (ex-message e)])})))))
    (testing "without one, the thread's uncaught-exception handler gets it, as for go"
      (let [seen (promise)
            before (Thread/getDefaultUncaughtExceptionHandler)]
        (Thread/setDefaultUncaughtExceptionHandler
         (reify Thread$UncaughtExceptionHandler
           (uncaughtException [_ t e] (deliver seen [(.getName ^Thread t) (ex-message e)]))))
        (try
          (let [c (wa/process-call #(throw (ex-info "lost?" {})) {:name "thrower"})]
            (is (nil? (within c)) "the channel closes")
            (let [[thread-name message] (deref seen 10000 nil)]
              (is (= "lost?" message))
              (is (re-matches #"weft-thrower-\d+" thread-name))))
          (finally (Thread/setDefaultUncaughtExceptionHandler before)))))))

(deftest context-keys-and-bindings-are-conveyed
  (with-scope [_]
    (with-context [request-id "r-7"]
      (binding [*dyn* :bound]
        (is (= ["r-7" :bound] (within (wa/process [@request-id *dyn*]))))
        (is (= ["r-7" :bound] (within (wa/process (within (wa/process [@request-id *dyn*]))))) "nested too")))))

(deftest a-process-belongs-to-the-current-scope
  (let [cancelled-before (-> (wa/thread-stats) :processes :cancelled)
        parked (CountDownLatch. 2)
        abandoned (a/chan)
        result (atom nil)]
    (with-scope [sc {:name "owner"}]
      (let [p1 (wa/process (.countDown parked) (wa/<!! abandoned))    ; weft's take
            p2 (wa/process (.countDown parked) (a/<!! abandoned))     ; core.async's take
            in-scope (within (wa/process (s/current-scope)))]
        (is (identical? sc in-scope) "Scope.current in a process is its owner")
        (await-latch parked)
        (reset! result [p1 p2])))
    (testing "ending the scope interrupted both and waited for them"
      (let [[p1 p2] @result]
        (is (nil? (within p1 100)) "closed, not waiting")
        (is (nil? (within p2 100)))
        (is (not-any? #(= "owner" (:scope %)) (wa/processes)))
        (is (<= 2 (- (-> (wa/thread-stats) :processes :cancelled) cancelled-before))
            "cancelled, not failed")))))

(deftest a-process-in-a-fork-belongs-to-the-forks-scope
  (with-scope [sc {:name "forking"}]
    (let [f (s/fork sc (within (wa/process (.name ^dev.weft.scope.Scope (s/current-scope)))))]
      (s/join sc)
      (is (= "forking" @f)))))

(deftest the-scope-option-picks-the-owner
  (let [started (CountDownLatch. 1)
        c (a/chan)
        ch (atom nil)]
    (with-scope [sc {:name "explicit"}]
      ;; started from another thread that belongs to no scope
      (reset! ch @(w/vfuture (wa/process-call #(do (.countDown started) (wa/<!! c)) {:scope sc})))
      (await-latch started)
      (is (= ["explicit"] (keep #(when (= "explicit" (:scope %)) (:scope %)) (wa/processes)))))
    (is (nil? (within @ch 100)) "the explicit scope's end ended it")))

(deftest nothing-starts-in-an-ended-scope
  (with-scope [sc]
    (s/cancel! sc)
    (is (thrown? CancellationException (wa/process 1))))
  (let [closed (with-scope [sc] sc)]
    (is (thrown-with-msg? CancellationException #"scope scope has ended, so no process starts in it"
                          (wa/process-call (constantly 1) {:scope closed}))))
  (testing "a process of an ending scope cannot start one that escapes it"
    (let [cancelled-before (-> (wa/thread-stats) :processes :cancelled)
          failed-before (-> (wa/thread-stats) :processes :failed)
          started (CountDownLatch. 1)
          outcome (promise)
          c (with-scope [_]
              (let [c (wa/process (try (.countDown started)
                                       (wa/<!! (a/chan))
                                       (catch InterruptedException _
                                         ;; its scope is closing: a nested process is refused
                                         (deliver outcome (try (wa/process 1) (catch CancellationException e e)))))
                                  (wa/process :never))]
                (await-latch started)
                c))]
      (is (instance? CancellationException (deref outcome 10000 nil)))
      (is (nil? (within c)))
      (is (not-any? #(= "async-root" (:scope %)) (wa/processes)) "nothing escaped to the root")
      (is (= 1 (- (-> (wa/thread-stats) :processes :cancelled) cancelled-before)) "the outer one ended as cancelled")
      (is (= failed-before (-> (wa/thread-stats) :processes :failed))))))

(deftest outside-any-scope-a-process-belongs-to-the-root
  (let [parked (CountDownLatch. 1)
        c (wa/process (.countDown parked) (wa/<!! (a/chan)))]
    (await-latch parked)
    (is (some #(= "async-root" (:scope %)) (wa/processes)))
    (is (true? (wa/stop-root! 10000)) "stop-root! interrupts the root's processes and waits")
    (is (nil? (within c)))
    (is (not-any? #(= "async-root" (:scope %)) (wa/processes)))
    (testing "the next process opens a new root"
      (is (= :again (within (wa/process :again)))))
    (is (true? (wa/stop-root!)))))

(deftest the-root-can-be-forbidden
  (let [before (System/getProperty "weft.async.root")]
    (try
      (System/setProperty "weft.async.root" "forbid")
      (is (thrown-with-msg? IllegalStateException #"outside any scope, and -Dweft.async.root=forbid: start it inside"
                            (wa/process 1)))
      (is (= 1 (with-scope [_] (within (wa/process 1)))) "inside a scope it is fine")
      (System/setProperty "weft.async.root" "sometimes")
      (is (thrown-with-msg? IllegalArgumentException #"must be allow or forbid; got \"sometimes\"" (wa/process 1)))
      (finally
        (if before
          (System/setProperty "weft.async.root" before)
          (System/clearProperty "weft.async.root"))))))

(deftest bad-arguments-are-clear-errors
  (is (thrown-with-msg? IllegalArgumentException #"needs a function of no arguments" (wa/process-call 42)))
  (is (thrown-with-msg? IllegalArgumentException #"weft.async/process-call: unknown option :nmae \(did you mean :name\?\)" (wa/process-call (constantly 1) {:nmae "x"})))
  (is (thrown-with-msg? IllegalArgumentException #":scope must be a dev.weft.scope.Scope" (wa/process-call (constantly 1) {:scope :s})))
  (is (thrown-with-msg? IllegalArgumentException #":name must be a non-blank name without whitespace" (wa/process-call (constantly 1) {:name "a b"})))
  (is (thrown-with-msg? IllegalArgumentException #":ex-handler must be a function" (wa/process-call (constantly 1) {:ex-handler 3})))
  (is (thrown-with-msg? IllegalArgumentException #"options must be a map" (wa/process-call (constantly 1) [:name "x"])))
  (is (thrown-with-msg? IllegalArgumentException #"needs at least one channel operation" (wa/alts!! [])))
  (is (thrown-with-msg? IllegalArgumentException #"cannot put nil" (wa/alts!! [[(a/chan) nil]])))
  (is (thrown-with-msg? IllegalArgumentException #"leak-report: :threshold must be milliseconds \(a number, 0 or more\)"
                        (wa/leak-report {:threshold -1})))
  (let [err (java.io.StringWriter.)]
    (binding [*err* err]
      (is (vector? (wa/leak-report {:threshold-ms 600000})) "the deprecated name still works"))
    (is (re-find #"option :threshold-ms is deprecated .*use :threshold" (str err))))
  (is (thrown-with-msg? IllegalArgumentException #"measure-threads: :interval must be a positive"
                        (wa/measure-threads (constantly 1) {:interval 0}))))

;; ---------------------------------------------------------------------------------------
;; Channel ops

(deftest ops-have-core-async-contracts
  (let [c (a/chan 2)]
    (is (true? (wa/>!! c 1)))
    (is (= 1 (wa/<!! c)))
    (a/close! c)
    (is (false? (wa/>!! c 2)) "a put on a closed channel is false")
    (is (nil? (wa/<!! c)) "a take on a closed, empty channel is nil"))
  (let [a (a/chan 1) b (a/chan 1)]
    (a/>!! b :b)
    (is (= [:b b] (wa/alts!! [a b])))
    (is (= [true a] (wa/alts!! [[a :x] b] :priority true)))
    (is (= [:x a] (wa/alts!! [a b] :priority true)))
    (is (= [:none :default] (wa/alts!! [a b] :default :none))))
  (testing "blocking ops wait for the other side"
    (let [c (a/chan)
          taker (wa/process (wa/<!! c))]
      (is (true? (wa/>!! c :v)))
      (is (= :v (within taker))))))

(defn- interrupt-while-parked
  "Starts `(op)` on a virtual thread, waits until it is parked, interrupts it and returns
  what it did: [:value v interrupted-after?] or [:interrupted]."
  [op]
  (let [out (promise)
        t (Thread/startVirtualThread
           (fn [] (deliver out (try [:value (op) (.isInterrupted (Thread/currentThread))]
                                    (catch InterruptedException _ [:interrupted])))))]
    (wait-until #(= Thread$State/WAITING (.getState t)))
    (.interrupt t)
    (deref out 10000 [:timeout])))

(deftest an-interrupted-take-is-withdrawn-and-loses-nothing
  (let [c (a/chan)]
    (is (= [:interrupted] (interrupt-while-parked #(wa/<!! c))))
    (is (nil? (a/offer! c :v)) "no taker is left behind on the channel: nothing takes it")
    (let [taker (wa/process (wa/<!! c))]
      (wa/>!! c :v)
      (is (= :v (within taker)) "the next value goes to the next taker")))
  (testing "alts!! withdraws every pending op"
    (let [x (a/chan) y (a/chan)]
      (is (= [:interrupted] (interrupt-while-parked #(wa/alts!! [x [y :put]]))))
      (is (nil? (a/offer! x 1)))
      (is (nil? (a/poll! y)) "the put was withdrawn"))))

(deftest an-interrupted-put-is-withdrawn
  (let [c (a/chan)]
    (is (= [:interrupted] (interrupt-while-parked #(wa/>!! c :late))))
    (is (nil? (a/poll! c)) "the value never lands after its putter gave up")))

(deftest interrupts-racing-transfers-lose-and-duplicate-nothing
  ;; A taker is interrupted at a random moment while a putter hands it a value. Either the
  ;; take completed (and the value is the taker's), or it was withdrawn (and the value is
  ;; still in the channel for the next taker): never lost, never twice.
  (dotimes [i 300]
    (let [c (a/chan)
          got (promise)
          taker (Thread/startVirtualThread
                 (fn [] (deliver got (try [:took (wa/<!! c)] (catch InterruptedException _ [:withdrawn])))))
          putter (w/vfuture (a/>!! c i))]
      (when (odd? i) (Thread/yield))
      (.interrupt taker)
      (let [[outcome v] (deref got 10000 [:timeout])]
        (case outcome
          :took (is (= i v))
          :withdrawn (is (= i (within c)) (str "value " i " was lost")))
        (is (true? (deref putter 10000 :timeout)))))))

;; ---------------------------------------------------------------------------------------
;; Leak report and accounting

(deftest the-leak-report-lists-processes-parked-too-long-with-their-stacks
  (with-scope [_]
    (let [abandoned (a/chan)
          parked (CountDownLatch. 2)
          stuck (wa/process-call #(do (.countDown parked) (wa/<!! abandoned)) {:name "stuck"})
          elsewhere (wa/process-call #(do (.countDown parked) (a/<!! abandoned)) {:name "core-async"})]
      (await-latch parked)
      (wait-until #(= 2 (count (filter (comp #{"stuck" "core-async"} :name) (wa/leak-report {:threshold 50})))))
      (let [report (wa/leak-report {:threshold 50})
            by-name (into {} (map (juxt :name identity)) report)
            s (by-name "stuck")]
        (is (= :take (:parked-in s)))
        (is (= [abandoned] (:channels s)))
        (is (= :waiting (:state s)))
        (is (>= (:parked-ms s) 50.0))
        (is (re-find #"async_test" (:at s)) "the line that waits")
        (is (some #(re-find #"weft.async\$_LT__BANG__BANG_" %) (:stack s)))
        (is (= :other (:parked-in (by-name "core-async"))) "parked outside weft's ops"))
      (is (not-any? (comp #{"stuck"} :name) (wa/leak-report {:threshold (java.time.Duration/ofMinutes 10)})) "under the threshold")
      (is (not-any? (comp #{"stuck"} :name) (wa/leak-report)) "the default threshold is 10 s")
      [stuck elsewhere])))

(deftest thread-stats-say-what-the-article-printed-by-hand
  (with-scope [_]
    (let [inside (within (wa/process (wa/thread-stats)))]
      (is (true? (:virtual? inside)))
      (is (re-matches #"weft-process-\d+" (:thread inside)))
      (is (pos? (:live-platform-threads inside)))
      (is (pos? (-> inside :processes :running))))
    (is (false? (:virtual? (wa/thread-stats))) "the test runs on a platform thread"))
  (testing "measure-threads: what a fan-out used"
    (let [n 200
          all-in (CountDownLatch. n)
          m (wa/measure-threads
             #(with-scope [_]
                (let [cs (mapv (fn [i] (wa/process (.countDown all-in) (.await all-in) i)) (range n))]
                  (mapv within cs))))]
      (is (= (range n) (:value m)))
      (is (= n (:processes-started m)))
      (is (<= n (:peak-processes m)) "all of them were alive at once")
      (is (pos? (:peak-platform-threads m)))
      (is (pos? (:wall-ms m))))))

;; ---------------------------------------------------------------------------------------
;; Property: no process outlives its scope.

(defspec no-process-outlives-its-scope 25
  (prop/for-all [finishing (gen/choose 0 20)
                 abandoned (gen/choose 0 20)
                 nested? gen/boolean]
    (let [started (CountDownLatch. abandoned)
          name (str "prop" (System/nanoTime))
          chans (atom nil)
          values (with-scope [_]
                   (let [dead-end (a/chan)
                         stuck (vec (for [_ (range abandoned)]
                                      (wa/process-call
                                       (fn []
                                         (.countDown started)
                                         (if nested?
                                           (within (wa/process-call #(wa/<!! dead-end) {:name name}) 600000)
                                           (wa/<!! dead-end)))
                                       {:name name})))
                         done (vec (for [i (range finishing)] (wa/process-call (fn [] i) {:name name})))]
                     (.await started 10 TimeUnit/SECONDS)
                     (reset! chans stuck)
                     (mapv within done)))]
      (and (= (range finishing) values)
           (not-any? #(= name (:name %)) (wa/processes))
           (every? #(nil? (within % 100)) @chans)))))

(deftest every-option-means-what-its-doc-says-of-nil
  (let [specs (filter #(re-find #"^weft\.async/" (:fn %)) (options/specs))]
    (is (<= 4 (count specs)) "the walk sees weft.async's options tables")
    (doseq [spec specs]
      (is (empty? (options/nil-problems spec)) (:fn spec)))))
