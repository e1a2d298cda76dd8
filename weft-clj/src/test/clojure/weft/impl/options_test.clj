(ns weft.impl.options-test
  (:require [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [weft.impl.options :as o]
            [weft.context]
            [weft.core]
            [weft.pin]
            [weft.pool]
            [weft.scope])
  (:import (dev.weft.clj InvalidOptionException)
           (java.time Duration)))

(def ^:private spec
  (o/spec "weft.test/f"
          [{:key :timeout :type :duration :doc "how long" :default 250 :aliases [:timeout-ms]}
           {:key :retry-after :type :duration :doc "Retry-After" :aliases {:retry-after-s #(* 1000 %)}}
           {:key :max-concurrency :type :pos-int :doc "the cap" :default-doc "no cap"}
           {:key :max-waiting :type :nat-int :doc "waiters" :requires [:max-concurrency "waiting is for callers beyond the cap"]}
           {:key :port :type :nat-int :doc "port" :nilable? false}
           (merge (o/one-of {:a 1 :b 2}) {:key :mode :doc "the mode"})]
          {:exclusive [[:timeout :retry-after "only one clock"]]
           :refused {:policy "f has its own policy"}
           :example "{:timeout 100}"}))

(deftest nil-means-what-the-option-says
  (let [spec (o/spec "weft.test/nil"
                     [{:key :max-bytes :type :pos-int :doc "largest body" :default 10 :nil "no limit"}
                      {:key :timeout :type :duration :doc "how long" :default 250}
                      {:key :cap :type :pos-int :doc "the cap" :requires [:max-bytes "a cap needs a size"]}])]
    (is (= {:max-bytes nil :timeout (Duration/ofMillis 250)} (o/check spec {:max-bytes nil}))
        "an option with :nil keeps its nil over the default")
    (is (= {:max-bytes 10 :timeout (Duration/ofMillis 250)} (o/check spec {:timeout nil}))
        "without :nil, nil is \"not given\"")
    (is (re-find #":cap needs :max-bytes" (ex-message (try (o/check spec {:cap 1 :max-bytes nil}) (catch Exception e e))))
        "a kept nil does not satisfy :requires")
    (is (str/includes? (o/doc spec) "default 10; nil for no limit") "the docstring says what nil means")
    (is (empty? (o/nil-problems spec)))
    (testing "nil-problems catches a doc that promises what check does not do"
      (is (= ["weft.test/nil2 :n speaks of nil in its :doc but has no :nil, so check treats nil as not given"]
             (o/nil-problems (o/spec "weft.test/nil2" [{:key :n :type :pos-int :doc "n; nil for none" :default 3}])))))
    (is (thrown-with-msg? IllegalArgumentException #":nil must be a string"
                          (o/spec "weft.test/nil3" [{:key :n :type :pos-int :doc "n" :nil true}])))))

(deftest every-weft-clj-option-means-what-its-doc-says-of-nil
  (let [specs (remove #(str/starts-with? (:fn %) "weft.test/") (o/specs))]
    (is (<= 8 (count specs)) "the walk sees the options tables of weft-clj's namespaces")
    (doseq [spec specs]
      (is (empty? (o/nil-problems spec)) (:fn spec)))))

(defn- failure [opts]
  (try (o/check spec opts) nil
       (catch InvalidOptionException e {:message (ex-message e) :data (ex-data e)})))

(deftest check-returns-options-ready-to-use
  (is (= {:timeout (Duration/ofMillis 250)} (o/check spec nil)) "defaults, coerced as given values are")
  (is (= {:timeout (Duration/ofMillis 250)} (o/check spec {})))
  (is (= {:timeout (Duration/ofMillis 5) :max-concurrency 3 :mode 2 :x/y :mine}
         (o/check spec {:timeout 5 :max-concurrency 3 :mode :b :x/y :mine})))
  (is (= {:timeout (Duration/ofMillis 250)} (o/check spec {:max-concurrency nil})) "nil is not given")
  (is (= (Duration/ofSeconds 2) (:timeout (o/check spec {:timeout (Duration/ofSeconds 2)})))))

(deftest one-kind-of-error-with-data
  (testing "unknown keys carry the known ones and the closest match"
    (let [{:keys [message data]} (failure {:timout 1 :zzz 2})]
      (is (str/starts-with? message "weft.test/f: unknown options :timout (did you mean :timeout?), :zzz;"))
      (is (= [:timout :zzz] (:unknown data)))
      (is (= {:timout :timeout :zzz nil} (:did-you-mean data)))
      (is (= [:max-concurrency :max-waiting :mode :port :retry-after :timeout] (:known data)))
      (is (= :weft/invalid-option (:weft/error data)))))
  (is (re-find #"options must be a map, like \{:timeout 100\}; got \[1\]" (:message (failure [1]))))
  (is (= {:option :timeout :value -1}
         (select-keys (:data (failure {:timeout -1})) [:option :value])))
  (is (re-find #":mode must be one of :a, :b; got :c" (:message (failure {:mode :c}))))
  (is (re-find #":port must be an integer, 0 or more; got nil" (:message (failure {:port nil}))))
  (is (re-find #":max-concurrency must be a positive integer; got 0" (:message (failure {:max-concurrency 0}))))
  (is (re-find #":timeout and :retry-after were both given; keep one \(only one clock\)"
               (:message (failure {:timeout 1 :retry-after 2}))))
  (is (re-find #":policy is not an option here: f has its own policy" (:message (failure {:policy :x}))))
  (is (re-find #":max-waiting needs :max-concurrency \(waiting is for callers beyond the cap\)"
               (:message (failure {:max-waiting 3}))))
  (is (instance? IllegalArgumentException (InvalidOptionException. "x" nil))))

(deftest deprecated-names-map-to-new-ones-and-warn-once
  (let [err (java.io.StringWriter.)
        results (binding [*err* err]
                  [(o/check spec {:timeout-ms 7}) (o/check spec {:timeout-ms 8}) (o/check spec {:retry-after-s 2})])]
    (is (= [(Duration/ofMillis 7) (Duration/ofMillis 8)] (map :timeout (take 2 results))))
    (is (= (Duration/ofSeconds 2) (:retry-after (nth results 2))) "an alias may convert its value")
    (is (<= (count (re-seq #":timeout-ms is deprecated" (str err))) 1) "one message per alias per JVM")
    (is (re-find #"option :retry-after-s is deprecated .*use :retry-after" (str err))))
  (is (re-find #"both :timeout-ms and :timeout were given; .*keep :timeout"
               (:message (failure {:timeout-ms 1 :timeout 2}))))
  (is (re-find #"unknown option :timeout-m \(did you mean :timeout\?\)" (:message (failure {:timeout-m 1})))))

(deftest the-docstring-comes-from-the-spec
  (let [d (o/doc spec)]
    (is (re-find #"(?m)^    :timeout\s+how long \(ms or a java.time.Duration\); default 250 ms$" d))
    (is (re-find #"(?m)^    :max-concurrency\s+the cap; default no cap$" d))
    (is (re-find #"Deprecated names, accepted until the next release: :timeout-ms -> :timeout, :retry-after-s -> :retry-after" d))
    (is (re-find #"Give only one of: :timeout and :retry-after" d))))

(deftest closest-match
  (is (= :max-concurrency (o/closest :max-concurency [:name :max-concurrency :timeout])))
  (is (nil? (o/closest :port [:max-concurrency :timeout])))
  (is (= :name (o/closest :nmae [:name :scope])) "a swap is one edit")
  (is (= :ordered? (o/closest :order [:close? :ordered?])) "a prefix is close"))
