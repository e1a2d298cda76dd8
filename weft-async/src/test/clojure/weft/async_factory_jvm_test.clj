(ns weft.async-factory-jvm-test
  "weft.async/executor-factory as users install it, -Dclojure.core.async.executor-factory, in
  JVMs of their own (core.async reads the property once per JVM): what core.async code does
  with and without it, with a core.async `thread` left parked on a channel nobody holds."
  (:require [clojure.edn :as edn]
            [clojure.string :as str]
            [clojure.test :refer [deftest is]])
  (:import (java.io File)
           (java.util.concurrent TimeUnit)))

(set! *warn-on-reflection* true)

(def ^:private script
  "What the child JVM runs; it prints one EDN map on its last line."
  (pr-str
   '(do
      (require '[clojure.core.async :as a])
      (require '[weft.async :as wa] '[weft.context :as ctx] '[weft.scope :refer [with-scope]])
      (def loaded-lazily
        ;; loading weft.async made no executor and started no core.async thread
        {:factory-made (realized? @(resolve 'weft.async/property-factory))
         :async-threads (count (filter #(.startsWith (.getName ^Thread %) "async-") (keys (Thread/getAllStackTraces))))})
      (ctx/defcontext tenant)
      (def in-scope
        (with-scope [_]
          (ctx/with-context [tenant "acme"]
            (a/<!! (a/thread [@tenant (.isVirtual (Thread/currentThread))])))))
      (def go-thread (a/<!! (a/go [(.getName (Thread/currentThread)) (.isVirtual (Thread/currentThread))])))
      ;; the leak: a thread parked on a channel that nobody holds after this form
      (def parked-thread
        (let [started (promise)]
          (a/thread (deliver started (.getName (Thread/currentThread))) (a/<!! (a/chan)))
          @started))
      (loop [n 0] ; until it parks (a hang guard): seen by the factory, or as a waiting platform thread
        (when-not (or (> n 1000)
                      (pos? (wa/straggler-count {:threshold 0}))
                      (some (fn [^Thread t] (and (= parked-thread (.getName t)) (= Thread$State/WAITING (.getState t))))
                            (keys (Thread/getAllStackTraces))))
          (Thread/sleep 10)
          (recur (inc n))))
      (prn {:loaded-lazily loaded-lazily
            :in-scope in-scope
            :go-thread go-thread
            :parked-thread parked-thread
            :stragglers (mapv #(select-keys % [:thread :workload :op :virtual? :at]) (wa/stragglers {:threshold 0}))
            :executors (:executors (wa/thread-stats))}))))

(defn- run-child
  "Runs `script` in a JVM with this test's classpath and `jvm-args`; its last line, read as EDN."
  [jvm-args]
  (let [java (str (System/getProperty "java.home") File/separator "bin" File/separator "java")
        ^java.util.List command (concat [java "-cp" (System/getProperty "java.class.path")] jvm-args
                                        ["clojure.main" "-e" script])
        p (-> (ProcessBuilder. command) (.redirectErrorStream true) (.start))
        out (future (slurp (.getInputStream p)))]
    (if (.waitFor p 180 TimeUnit/SECONDS)
      (let [text @out]
        (is (zero? (.exitValue p)) text)
        (try (edn/read-string (last (str/split-lines text)))
             (catch Exception _ (is false (str "no EDN map on the last line:\n" text)) {})))
      (do (.destroyForcibly p)
          (is false (str "the child JVM did not end within 180 s:\n" @out))
          {}))))

(deftest with-the-factory-core-async-code-runs-on-virtual-threads-and-the-leak-is-named
  (let [r (run-child ["-Dclojure.core.async.executor-factory=weft.async/executor-factory"])
        [s :as found] (:stragglers r)]
    (is (= {:factory-made false :async-threads 0} (:loaded-lazily r))
        "loading weft.async starts no core.async work: core.async calls the factory on its first dispatch")
    (is (= ["acme" true] (:in-scope r)) "a scope's context reaches a core.async thread started inside it, a virtual one")
    (is (str/starts-with? (first (:go-thread r)) "async-dispatch-"))
    (is (true? (second (:go-thread r))) "go blocks are dispatched on virtual threads")
    (is (= 1 (count found)) (str "the parked thread is the one straggler: " found))
    (is (= (:parked-thread r) (:thread s)))
    (is (= [:mixed :take true] [(:workload s) (:op s) (:virtual? s)]))
    (is (str/starts-with? (str (:at s)) "user$") (str "the frame that waits is the script's own: " (:at s)))
    (is (pos? (get-in r [:executors :mixed :started] 0)) "core.async's tasks are counted")))

(deftest without-it-core-async-gives-no-sign-of-the-same-leak
  (let [r (run-child [])]
    (is (str/starts-with? (str (:parked-thread r)) "async-mixed-") "the same thread parks, on core.async's pool")
    (is (= [] (:stragglers r)) "nothing names it")
    (is (empty? (:executors r)) "and nothing counts it")
    (is (= [nil false] (:in-scope r)) "core.async's own pool conveys no context keys, and runs platform threads")
    (is (false? (second (:go-thread r))))))
