(ns weft.async-jfr-test
  "weft.async/pipeline's stop as a dev.weft.PipelineStop JFR event, in a real recording."
  (:require [clojure.core.async :as a]
            [clojure.test :refer [deftest is]]
            [weft.async :as wa]
            [weft.test-support :refer [within]])
  (:import (java.nio.file Files)
           (java.nio.file.attribute FileAttribute)
           (jdk.jfr Recording)
           (jdk.jfr.consumer RecordedEvent RecordingFile)))

(set! *warn-on-reflection* true)

(defn- recorded-stops
  "Runs `f` in a recording with dev.weft.PipelineStop enabled; the events, as maps, in order."
  [f]
  (let [file (Files/createTempFile "weft-pipeline" ".jfr" (make-array FileAttribute 0))]
    (try
      (with-open [r (Recording.)]
        (.enable r "dev.weft.PipelineStop")
        (.start r)
        (f)
        (.stop r)
        (.dump r file))
      (->> (RecordingFile/readAllEvents file)
           (filter #(= "dev.weft.PipelineStop" (.getName (.getEventType ^RecordedEvent %))))
           (mapv (fn [^RecordedEvent e]
                   {:name (.getString e "name") :reason (.getString e "reason")
                    :taken (.getLong e "taken") :delivered (.getLong e "delivered")})))
      (finally (Files/deleteIfExists file)))))

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
