(ns weft.async-jfr-test
  "weft.async/pipeline's stop as a dev.weft.PipelineStop JFR event, and a core.async straggler
  as a dev.weft.AsyncStraggler, in real recordings."
  (:require [clojure.core.async :as a]
            [clojure.test :refer [deftest is]]
            [weft.async :as wa]
            [weft.test-support :refer [within]])
  (:import (java.nio.file Files)
           (java.nio.file.attribute FileAttribute)
           (jdk.jfr Recording)
           (jdk.jfr.consumer RecordedEvent RecordingFile)))

(set! *warn-on-reflection* true)

(defn- recorded
  "Runs `f` in a recording with event `event-name` enabled; the events of that name, in order."
  [^String event-name f]
  (let [file (Files/createTempFile "weft-async" ".jfr" (make-array FileAttribute 0))]
    (try
      (with-open [r (Recording.)]
        (.enable r event-name)
        (.start r)
        (f)
        (.stop r)
        (.dump r file))
      (->> (RecordingFile/readAllEvents file)
           (filterv #(= event-name (.getName (.getEventType ^RecordedEvent %)))))
      (finally (Files/deleteIfExists file)))))

(defn- recorded-stops
  "Runs `f` in a recording with dev.weft.PipelineStop enabled; the events, as maps, in order."
  [f]
  (mapv (fn [^RecordedEvent e]
          {:name (.getString e "name") :reason (.getString e "reason")
           :taken (.getLong e "taken") :delivered (.getLong e "delivered")})
        (recorded "dev.weft.PipelineStop" f)))

(deftest a-pipelines-stop-is-recorded-with-how-it-stopped
  (let [events (recorded-stops
                (fn []
                  (let [to (a/chan 100)]
                    (within (wa/pipeline 4 to (map inc) (a/to-chan! (range 10)) {:name "incs"}))
                    (within (wa/pipeline 2 (a/chan 100) (map #(if (= % 3) (throw (ex-info "bad input" {})) %))
                                         (a/to-chan! (range 10)) {:name "fails"})))))]
    (is (= [{:name "incs" :reason "completed" :taken 10 :delivered 10}]
           (filter #(= "incs" (:name %)) events)))
    (let [[failed] (filter #(= "fails" (:name %)) events)]
      (is (= "failed: clojure.lang.ExceptionInfo" (:reason failed)))
      (is (= 3 (:delivered failed)) "exactly the outputs before the failing input"))))

(deftest a-straggler-is-recorded-once-with-its-thread-op-and-stack
  (let [lost (a/chan)
        thread-name (promise)
        found (atom nil)
        events (recorded "dev.weft.AsyncStraggler"
                         (fn []
                           (.execute ^java.util.concurrent.Executor ((wa/executor-factory-of) :io)
                                     (fn [] (deliver thread-name (.getName (Thread/currentThread))) (a/<!! lost)))
                           (let [t (deref thread-name 10000 nil)
                                 ;; every executor names its threads from 1: a task another test
                                 ;; left parked may have the same thread name, and its own frame
                                 ;; in another namespace
                                 mine #(some (fn [s] (when (and (= t (:thread s))
                                                                (some-> ^String (:at s) (.contains "weft.async_jfr_test")))
                                                       s))
                                             (wa/stragglers {:threshold 0}))]
                             (loop [n 0] ; hang guard: until the task parks in its take
                               (when-not (or (reset! found (mine)) (> n 1000))
                                 (Thread/sleep 10) (recur (inc n))))
                             (mine))
                           (a/close! lost)))
        ;; this task's events (another test's straggler of the same thread name may be reported
        ;; here for the first time)
        events (filterv #(and (= @thread-name (.getString ^RecordedEvent % "thread"))
                              (some-> (.getString ^RecordedEvent % "at") (.contains "weft.async_jfr_test")))
                        events)]
    (is (some? @found) "the task was found parked")
    (is (= 1 (count events)) "one event per straggler, however often it is found")
    (let [^RecordedEvent e (first events)]
      (is (.startsWith (.getString e "thread") "async-io-"))
      (is (= ["io" "take"] [(.getString e "workload") (.getString e "operation")]))
      (is (= (:at @found) (.getString e "at")) "the frame wa/stragglers named")
      (is (.contains (.getString e "stack") "CountDownLatch.await")))))

(deftest the-deprecated-class-in-weft-core-names-the-same-event
  (is (= "dev.weft.PipelineStop" dev.weft.async.PipelineStopEvent/NAME dev.weft.jfr.PipelineStopEvent/NAME)
      "code that read the name from weft-core's dev.weft.jfr.PipelineStopEvent still gets the recorded name"))
