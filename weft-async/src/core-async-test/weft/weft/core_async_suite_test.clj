(ns weft.core-async-suite-test
  "Runs after core.async's own suite in the same JVM (namespaces run in order, clojure.* first):
  says which executors that suite ran on, so that a run meant to be under
  weft.async/executor-factory cannot pass on core.async's defaults unnoticed. core.async keeps
  the executors it first made for the life of the JVM, so these are the suite's."
  (:require [clojure.core.async :as a]
            [clojure.core.async.impl.dispatch :as dispatch]
            [clojure.string :as str]
            [clojure.test :refer [deftest is]]))

(set! *warn-on-reflection* true)

(defn- under-weft? []
  (= "weft.async/executor-factory" (System/getProperty "clojure.core.async.executor-factory")))

(deftest the-suite-ran-on-the-executors-it-was-meant-to
  (let [[thread-name virtual?] (a/<!! (a/thread (let [t (Thread/currentThread)] [(.getName t) (.isVirtual t)])))
        [go-name go-virtual?] (a/<!! (a/go (let [t (Thread/currentThread)] [(.getName t) (.isVirtual t)])))]
    (is (str/starts-with? thread-name "async-mixed-"))
    (if (under-weft?)
      (do (is (str/includes? (str (dispatch/executor-for :mixed)) "weft virtual-thread executor"))
          (is virtual? "thread runs on a virtual thread under weft")
          (is (and (str/starts-with? go-name "async-dispatch-") go-virtual?) "go blocks are dispatched on virtual threads"))
      (do (is (not virtual?) "core.async's own :mixed pool runs platform threads")
          (is (not go-virtual?))))))
