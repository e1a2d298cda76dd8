(ns weft.ring.h2load-test
  "HTTP/2 under volume: h2load (Debian's nghttp2-client, which `./weft test` installs when it is
  missing) sends thousands of requests as many concurrent streams over a few h2c connections,
  and the server shows where each stream's handler call ran."
  (:require [clojure.java.io :as io]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [weft.ring.test-support :refer [with-server]])
  (:import (java.io File)
           (java.util.concurrent ConcurrentHashMap TimeUnit)
           (java.util.concurrent.atomic AtomicInteger)))

(set! *warn-on-reflection* true)

(defn- h2load-binary
  "The h2load on the PATH, or nil."
  []
  (some (fn [dir] (let [f (io/file dir "h2load")] (when (.canExecute f) (str f))))
        (str/split (or (System/getenv "PATH") "") (re-pattern File/pathSeparator))))

(defn- run-h2load
  "Runs h2load with `args`; returns its output. A hang guard ends it after 120 s."
  [bin args]
  (let [out (File/createTempFile "weft-h2load" ".txt")
        p (-> (ProcessBuilder. ^java.util.List (into [bin] args))
              (.redirectErrorStream true)
              (.redirectOutput out)
              (.start))]
    (try
      (when-not (.waitFor p 120 TimeUnit/SECONDS)
        (throw (ex-info "h2load did not finish within 120 s (hang guard)" {:args args :output (slurp out)})))
      (str "exit " (.exitValue p) "\n" (slurp out))
      (finally
        (.destroyForcibly p)
        (.delete out)))))

(defn- figure
  "The number before `label` on h2load's line starting with `line`, e.g. (figure out \"requests:\" \"succeeded\")."
  [output line label]
  (some->> (str/split-lines output)
           (filter #(str/starts-with? (str/trim %) line))
           first
           (re-find (re-pattern (str "(\\d+) " label)))
           second
           parse-long))

(deftest h2c-volume-each-stream-on-its-own-virtual-thread
  (if-let [bin (h2load-binary)]
    (let [n 3000
          connections 4
          streams 100
          threads (ConcurrentHashMap.)
          protocols (ConcurrentHashMap.)
          running (AtomicInteger.)
          peak (AtomicInteger.)
          calls (AtomicInteger.)
          handler (fn [req]
                    (let [now (.incrementAndGet running)
                          t (Thread/currentThread)]
                      (.accumulateAndGet peak now (reify java.util.function.IntBinaryOperator
                                                    (applyAsInt [_ a b] (max a b))))
                      (.incrementAndGet calls)
                      (.put threads (.threadId t) (and (.isVirtual t) (str/starts-with? (.getName t) "weft-ring-")))
                      (.merge protocols (:protocol req) 1 (reify java.util.function.BiFunction
                                                            (apply [_ a b] (+ (long a) (long b)))))
                      (try
                        ;; Long enough that a connection's streams overlap, so that a server that
                        ;; ran them one after another on one thread could not pass.
                        (Thread/sleep 10)
                        {:status 200 :headers {"content-type" "text/plain"} :body "ok"}
                        (finally (.decrementAndGet running)))))]
      (with-server [s handler {:http2? true}]
        (let [out (run-h2load bin ["-n" (str n) "-c" (str connections) "-m" (str streams)
                                   (str "http://127.0.0.1:" (:port s) "/volume")])]
          (testing (str "h2load's summary:\n" out)
            (is (str/starts-with? out "exit 0"))
            (is (str/includes? out "h2c") "h2load spoke h2c (prior knowledge)")
            (is (= n (figure out "requests:" "succeeded")) "every request succeeded")
            (is (= 0 (figure out "requests:" "failed")))
            (is (= 0 (figure out "requests:" "errored")))
            (is (= n (figure out "status codes:" "2xx")) "every response was a 200")))
        (testing "the server saw every stream as an HTTP/2 request"
          (is (= n (.get calls)))
          (is (= {"HTTP/2" n} (into {} protocols))))
        (testing "each stream's handler call ran on a virtual thread of its own"
          (is (= n (count threads)) "as many distinct threads as streams")
          (is (every? true? (vals threads)) "each a weft-ring virtual thread"))
        (testing "a connection's streams ran at the same time, not one after another"
          (is (> (.get peak) connections)
              (str "at most " (.get peak) " handler calls ran at once over " connections " connections")))))
    (is false (str "h2load is not installed: install Debian's nghttp2-client (apt-get install nghttp2-client);"
                   " ./weft test installs it when it is missing"))))
