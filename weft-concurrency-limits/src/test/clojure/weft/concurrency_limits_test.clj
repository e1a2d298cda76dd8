(ns weft.concurrency-limits-test
  (:require [clojure.test :refer [deftest is testing]]
            [weft.concurrency-limits :as limits]
            [weft.impl.options :as options])
  (:import (com.netflix.concurrency.limits.limit AIMDLimit Gradient2Limit VegasLimit)
           (dev.weft.concurrencylimits NetflixLimit)
           (dev.weft.limit AdaptiveLimit LimitExceededException Limiter)))

(set! *warn-on-reflection* true)

(deftest each-constructor-gives-netflixs-algorithm-with-the-options-given
  (doseq [[f cls] [[limits/aimd AIMDLimit] [limits/vegas VegasLimit] [limits/gradient2 Gradient2Limit]]]
    (let [^NetflixLimit l (f {:initial-limit 3})]
      (is (instance? AdaptiveLimit l))
      (is (instance? cls (.delegate l)))
      (is (= 3 (.limit l)))
      (testing "a weft Limiter enforces it"
        (let [limiter (.build (.maxWaiting (Limiter/builder "t" ^AdaptiveLimit l) 0))
              permits (doall (repeatedly 3 #(.acquire limiter)))]
          (is (thrown? LimitExceededException (.acquire limiter)))
          (run! #(.close ^java.lang.AutoCloseable %) permits)))))
  (is (= 20 (.limit ^AdaptiveLimit (limits/vegas))) "Netflix's initial limit by default"))

(deftest aimd-takes-a-timeout-as-a-duration-or-milliseconds
  (let [^AdaptiveLimit l (limits/aimd {:initial-limit 10 :timeout 50})]
    (.onSample l 0 (* 60 1000000) 10 false) ; slower than the timeout: a drop
    (is (= 9 (.limit l)))
    (let [^AdaptiveLimit l (limits/aimd {:initial-limit 10 :timeout (java.time.Duration/ofMillis 50)})]
      (.onSample l 0 (* 40 1000000) 10 false) ; within it, busy: one more
      (is (= 11 (.limit l))))))

(deftest bad-options-name-the-problem
  (is (thrown-with-msg? IllegalArgumentException #":initial-limit must be a positive integer"
                        (limits/vegas {:initial-limit 0})))
  (is (thrown-with-msg? IllegalArgumentException #":initial-limit 300 must be from 1 \(:min-limit\) to 200"
                        (limits/aimd {:initial-limit 300})))
  (is (thrown-with-msg? IllegalArgumentException #":min-limit 50 is above :max-concurrency 10"
                        (limits/gradient2 {:min-limit 50 :max-concurrency 10})))
  (is (thrown-with-msg? IllegalArgumentException #":backoff-ratio must be a number from 0.5"
                        (limits/aimd {:backoff-ratio 0.2})))
  (is (thrown-with-msg? IllegalArgumentException #":timeout must be positive"
                        (limits/aimd {:timeout 0})))
  (is (thrown-with-msg? IllegalArgumentException #"unknown|:inital-limit"
                        (limits/vegas {:inital-limit 5}))))

(deftest every-option-means-what-its-doc-says-of-nil
  (let [specs (filter #(re-find #"^weft\.concurrency-limits/" (:fn %)) (options/specs))]
    (is (= 3 (count specs)) "the walk sees vegas', aimd's and gradient2's options tables")
    (doseq [spec specs]
      (is (empty? (options/nil-problems spec)) (:fn spec)))))
