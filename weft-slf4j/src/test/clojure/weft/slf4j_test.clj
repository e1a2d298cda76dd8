(ns weft.slf4j-test
  (:require [clojure.test :refer [deftest is testing use-fixtures]]
            [weft.context :refer [defcontext with-context]]
            [weft.thread :as w]
            [weft.scope :refer [with-scope fork join]]
            [weft.slf4j :as slf4j])
  (:import (org.slf4j MDC)))

(set! *warn-on-reflection* true)

;; Both backends are on the test classpath: take Logback, as the Java tests do.
(System/setProperty "slf4j.provider" "ch.qos.logback.classic.spi.LogbackServiceProvider")

(defcontext request-id "The request being served.")
(defcontext tenant)

(defn- mdc [] (MDC/get "requestId"))

(deftest mirrored-keys-reach-the-mdc-of-every-thread-weft-starts
  (with-open [_ (slf4j/mirror! {request-id "requestId" tenant :tenant})]
    (with-context [request-id "r-clj" tenant 7]
      (is (= "r-clj" (mdc)) "the body itself")
      (is (= "7" (MDC/get "tenant")) "keyword names, values as strings")
      (is (= "r-clj" @(w/vfuture (mdc))))
      (is (= "r-clj" (let [r (promise)] (.join (w/vthread (deliver r (mdc)))) @r)))
      (with-scope [s]
        (let [f (fork s (mdc))]
          (join s)
          (is (= "r-clj" @f))))
      (with-open [ex (w/executor "mdc-clj")]
        (is (= "r-clj" @(.submit ex ^Callable mdc)))))
    (is (nil? (mdc)) "gone after the body")))

(deftest a-reused-thread-keeps-no-entry
  (with-open [_ (slf4j/mirror! {request-id "requestId"})
              ex (w/executor "mdc-reuse" {:threads :platform})]
    (with-context [request-id "r-1"]
      @(.submit ex ^Callable mdc))
    (is (every? nil? (repeatedly 10 #(deref (.submit ex ^Callable mdc)))))))

(deftest bad-input-names-the-fix
  (testing "not a map"
    (is (thrown-with-msg? IllegalArgumentException #"non-empty map of context key to MDC name"
                          (slf4j/mirror! [request-id "x"])))
    (is (thrown-with-msg? IllegalArgumentException #"non-empty map"
                          (slf4j/mirror! {}))))
  (testing "not a key"
    (is (thrown-with-msg? IllegalArgumentException #"is not a context key"
                          (slf4j/mirror! {:request-id "x"}))))
  (testing "a name that is not a string"
    (is (thrown-with-msg? IllegalArgumentException #"must be a string, keyword or symbol"
                          (slf4j/mirror! {request-id 42})))))
