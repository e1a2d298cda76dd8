(ns weft.pin-test
  (:require [clojure.string :as str]
            [clojure.test :as t :refer [deftest is testing]]
            [weft.pin :as pin :refer [no-pins? pins?]])
  (:import (dev.weft.pin PinMonitor PinProbe PinReport)
           (java.time Duration)))

(def ^:private jdk-24+ (>= (.feature (Runtime/version)) 24))
(def ^:dynamic *bound* :root)
(def ^:private probe-init "dev.weft.pin.ProbeInit")

(defn- reports-of
  "Runs f with clojure.test reporting captured, so that a failing assertion under test does
  not fail this test run; returns the report maps."
  [f]
  (let [reports (atom [])]
    (binding [t/report #(swap! reports conj %)]
      (f))
    @reports))

(deftest pins-of-returns-the-pins-a-body-caused
  (let [r (pin/pins-of (pin/probe! 10) (pin/probe! 10))]
    (is (= 2 (:pins r)))
    (is (= 1 (count (:sites r))))
    (let [site (first (:sites r))]
      (is (= 2 (:count site)))
      ;; JFR times a pin from the park attempt, after the probe's sleep began: on JDK 25 the pins
      ;; last their 10 ms, on JDK 21 measurably less (11.9 ms in total seen for 2 x 10 ms)
      (is (pos? (:total-ms site)) "the pins' time is recorded")
      (when jdk-24+
        (is (>= (:total-ms site) 20.0) "each pin lasts at least its 10 ms"))
      (is (some #(and (= probe-init (:class %)) (= "<clinit>" (:method %))) (:frames site)))
      (when jdk-24+
        (is (= (str "VM call to " probe-init ".<clinit> on stack") (:reason site)))))
    (is (= 0.0 (:threshold-ms r)))
    (is (string? (:from r)))))

(deftest work-that-only-parks-does-not-pin
  (let [lock (Object.)
        r (pin/pins-of
           @(future-call (fn [] :platform-threads-never-pin))
           (.join (Thread/startVirtualThread
                   (fn [] (locking lock (Thread/sleep 10))))))]
    (if jdk-24+
      (is (zero? (:pins r)) "JEP 491: locking no longer pins")
      (is (= 1 (:pins r)) "JDK 21-23: sleeping inside locking pins"))))

(deftest a-body-that-throws-still-ends-its-capture
  (is (thrown-with-msg? clojure.lang.ExceptionInfo #"boom"
                        (pin/pins-of (pin/probe! 1) (throw (ex-info "boom" {})))))
  (is (zero? (:pins (pin/pins-of :nothing))) "the next capture starts clean"))

(deftest no-pins?-passes-quietly-and-fails-with-the-stacks
  (is (no-pins? (+ 1 2)))
  (let [[r & more] (reports-of #(is (no-pins? (pin/probe! 5)) "pinning is a bug here"))]
    (is (empty? more))
    (is (= :fail (:type r)))
    (is (str/starts-with? (:message r) (str "pinning is a bug here\n"
                                            "expected no pinned virtual threads, but the body pinned once:\n1 pin at 1 site")))
    (is (= '(no-pins? (pin/probe! 5)) (:expected r)))
    (is (= '(not (no-pins? (pin/probe! 5))) (:actual r)))
    (is (str/includes? (:message r) (str "at " probe-init ".<clinit>")) "the stack is in the message")
    (let [printed (binding [t/*test-out* (java.io.StringWriter.)
                            t/*report-counters* (ref t/*initial-report-counters*)]   ; not this test's failure
                    ((get-method (.getRawRoot #'t/report) :fail) r)   ; clojure.test's own printing, not the runner's
                    (str t/*test-out*))]
      (is (str/includes? printed "\n1 pin at 1 site") "clojure.test prints the report as lines")
      (is (not (str/includes? printed "\\n")) "not as one escaped string"))))

(deftest pins?-expects-pinning
  (is (pins? (pin/probe! 5)))
  (let [[r] (reports-of #(is (pins? (+ 1 2))))]
    (is (= :fail (:type r)))
    (is (str/starts-with? (:message r) "expected the body to pin a virtual thread at least once, but it pinned 0 times"))
    ;; JDK 21-23: the failure says that JFR cannot see Object.wait holding a carrier
    (is (= (not jdk-24+) (str/includes? (:message r) "Object.wait holds the carrier")))))

(deftest a-body-that-throws-is-an-error-with-the-broken-rule-attached
  (let [[r] (reports-of #(is (no-pins? (pin/probe! 1) (throw (ex-info "mine" {})))))]
    (is (= :error (:type r)))
    (is (= "mine" (ex-message (:actual r))))
    (is (str/includes? (ex-message (first (.getSuppressed ^Throwable (:actual r)))) "pinned once"))))

(deftest interrupting-the-caller-interrupts-the-body-and-waits-for-it
  (let [body-thread (promise)
        body-interrupted (java.util.concurrent.CountDownLatch. 1)
        caller-got (promise)
        caller (Thread/startVirtualThread
                (fn []
                  (try (pin/capture-call
                        (fn []
                          (deliver body-thread (Thread/currentThread))
                          (try (.await (java.util.concurrent.CountDownLatch. 1))
                               (catch InterruptedException e
                                 (.countDown body-interrupted)
                                 (Thread/sleep 20)   ; still busy: the caller must wait for it
                                 (throw e)))))
                       (catch Throwable t (deliver caller-got t)))))]
    (is (.isAlive ^Thread @body-thread) "the body runs, blocked")
    (.interrupt caller)
    (.join caller)
    (is (instance? InterruptedException @caller-got))
    (is (zero? (.getCount body-interrupted)) "the body was interrupted")
    (is (not (.isAlive ^Thread @body-thread)) "and had ended when capture-call threw")))

(deftest the-qualified-forms-work-too
  (is (weft.pin/no-pins? :ok))
  (is (weft.pin/pins? (pin/probe! 1)))
  (is (true? (pin/no-pins? :outside-is)) "outside `is` they are predicates")
  (is (false? (pin/pins? :outside-is))))

(deftest the-body-runs-on-a-virtual-thread-unless-asked-not-to
  (let [block-in-class-init #(PinProbe/pin (Duration/ofMillis 5))]
    (is (= 1 (:pins (pin/pins-of (block-in-class-init)))) "on the check's virtual thread it pins")
    (is (pins? (block-in-class-init)))
    (is (zero? (.pins (pin/capture-call block-in-class-init {:thread :caller})))
        "the test's platform thread only blocks")
    (is (= [true :bound] (binding [*bound* :bound]
                           (let [seen (promise)]
                             (pin/pins-of (deliver seen [(.isVirtual (Thread/currentThread)) *bound*]))
                             @seen)))
        "a virtual thread, with the caller's bindings")
    (is (= :bound (binding [*bound* :bound]
                    (pin/capture-call (fn []) {:thread :caller})
                    *bound*))
        "on the caller's thread its bindings stay as they were")
    (is (thrown-with-msg? IllegalArgumentException #"weft.pin/capture-call: :thread must be one of :caller, :virtual; got :green"
                          (pin/capture-call (fn []) {:thread :green})))))

(deftest capture-call-gives-the-java-report
  (let [r (pin/capture-call #(pin/probe! 5))]
    (is (instance? PinReport r))
    (is (= 1 (:pins (pin/report r))))
    (is (str/includes? (pin/report-text r) "1 pin at 1 site"))))

(deftest a-monitor-calls-back-reports-and-stops
  (let [seen (atom [])
        m (pin/monitor {:threshold 0 :on-pin #(swap! seen conj %) :scheduler-interval 5 :scheduler-keep 50})]
    (try
      (is (instance? PinMonitor m))
      (pin/probe! 5)
      (let [r (pin/report m)]
        (is (= 1 (:pins r)))
        (is (= 1 (count @seen)) "the callback ran once, before the report returned")
        (is (= #{:start :duration-ms :reason :blocking-operation :thread :carrier :frames :truncated}
               (set (keys (first @seen)))))
        (is (map? (:scheduler r)))
        (is (contains? (:scheduler r) :max-mounted-virtual-threads))
        (is (str/includes? (pin/report-text m) "scheduler: ")))
      (finally
        (let [last-report (pin/stop! m)]
          (is (= 1 (:pins last-report)))
          (is (= last-report (pin/stop! m)) "stop! is idempotent"))))))

(deftest options-are-checked
  (is (thrown-with-msg? IllegalArgumentException #":threshold must be milliseconds \(a number, 0 or more\)"
                        (pin/monitor {:threshold "20ms"})))
  (is (thrown-with-msg? IllegalArgumentException #":threshold must be milliseconds .*; got -1"
                        (pin/monitor {:threshold -1})))
  (is (thrown-with-msg? IllegalArgumentException #"weft.pin/monitor: unknown option :treshold \(did you mean :threshold\?\)"
                        (pin/monitor {:treshold 5})))
  (is (thrown-with-msg? IllegalArgumentException #":top-frames must be a positive integer; got 0"
                        (pin/monitor {:top-frames 0})))
  (is (thrown-with-msg? IllegalArgumentException #"expected a PinMonitor or a PinReport"
                        (pin/report-text {:pins 0}))))
