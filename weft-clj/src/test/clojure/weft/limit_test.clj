(ns weft.limit-test
  (:require [clojure.test :refer [deftest is testing]]
            [weft.limit :as limit]
            [weft.pool :as pool])
  (:import (dev.weft.clj InvalidOptionException)
           (dev.weft.limit AdaptiveLimit LimitExceededException Limiter)
           (java.time Duration)))

(set! *warn-on-reflection* true)

(deftest a-fixed-limiter-from-clojure
  (let [^Limiter l (limit/limiter :db 2 {:max-waiting 0 :max-wait 100})]
    (is (= "db" (.name l)))
    (is (= 2 (.permits l)))
    (is (= 0 (.maxWaiting l)))
    (is (= (Duration/ofMillis 100) (.get (.maxWait l))))
    (is (= 42 (limit/call l (constantly 42))))
    (with-open [_ (.acquire l) _ (.acquire l)]
      (is (thrown? LimitExceededException (limit/call l (constantly 1))) "full, and nobody may wait"))
    (is (zero? (.inUse l)) "no permit leaked")))

(deftest an-adaptive-limiter-follows-its-limit
  (let [current (atom 3)
        l (limit/limiter "api" (reify AdaptiveLimit (limit [_] @current) (onSample [_ _ _ _ _])))]
    (is (= 3 (.permits ^Limiter l)))
    (reset! current 5)
    (is (= 5 (.permits ^Limiter l)))))

(deftest bad-input-names-the-fix
  (is (thrown-with-msg? InvalidOptionException #"permits must be a positive integer or a dev.weft.limit.AdaptiveLimit; got 0"
                        (limit/limiter "x" 0)))
  (is (thrown-with-msg? InvalidOptionException #"permits must be" (limit/limiter "x" "3")))
  (is (thrown-with-msg? InvalidOptionException #":max-waiting" (limit/limiter "x" 3 {:max-waiting -1})))
  (is (thrown-with-msg? InvalidOptionException #"unknown option :max-wiating" (limit/limiter "x" 3 {:max-wiating 1}))))

(deftest a-pool-driven-limiter
  (with-open [p (pool/pool "db" #(Object.) {:max-size 4})]
    (let [^Limiter l (pool/admission-limiter p)]
      (is (= "db" (.name l)))
      (is (= 8 (.permits l)) "before any measurement: the pool's size plus a queue as long")
      (is (= 0 (.maxWaiting l)) "it sheds at once: the queue is the pool's"))
    (is (= 4 (.permits ^Limiter (pool/admission-limiter p {:target-wait 0}))) "a zero target: the pool's size")
    (testing "bad input"
      (is (thrown-with-msg? InvalidOptionException #":target-wait must be" (pool/admission-limiter p {:target-wait -5})))
      (is (thrown-with-msg? InvalidOptionException #"must be a dev.weft.pool.Pool" (pool/admission-limiter nil))))))
