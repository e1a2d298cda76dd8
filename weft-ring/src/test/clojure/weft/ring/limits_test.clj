(ns weft.ring.limits-test
  "Concurrency control and the request timeout, over real HTTP: requests in flight are
  bounded, a bounded queue waits, the rest get 503 with Retry-After at once."
  (:require [clojure.test :refer [deftest is testing]]
            [weft.ring :as ring]
            [weft.ring.test-http :as http]
            [weft.ring.test-support :refer [with-server capture-log lines-containing await!]])
  (:import (java.util.concurrent CountDownLatch ExecutorService Executors Semaphore TimeUnit)))

(set! *warn-on-reflection* true)

(defn- gated-handler
  "A handler that counts each call on `entered` and then waits for `gate`."
  [^Semaphore entered ^CountDownLatch gate]
  (fn [req]
    (.release entered)
    (.await gate 60 TimeUnit/SECONDS)
    {:status 200 :headers {} :body (str "done " (:uri req))}))

(defn- submit ^java.util.concurrent.Future [^ExecutorService ex f]
  (.submit ex ^Callable f))

(deftest in-flight-limit-queue-and-503
  (let [entered (Semaphore. 0)
        gate (CountDownLatch. 1)]
    (with-open [clients (Executors/newVirtualThreadPerTaskExecutor)]
      (with-server [s (gated-handler entered gate) {:max-in-flight 2 :max-queued 1 :retry-after-s 7}]
        (let [port (:port s)
              f1 (submit clients #(http/http port "GET" "/1"))
              f2 (submit clients #(http/http port "GET" "/2"))]
          (is (.tryAcquire entered 2 30 TimeUnit/SECONDS) "two requests are in the handler")
          (let [f3 (submit clients #(http/http port "GET" "/3"))]
            (await! #(= 1 (:waiting (ring/stats s))))
            (testing "beyond the limit and the queue: 503 at once, with Retry-After"
              (let [r4 (http/http port "GET" "/4")]
                (is (= 503 (:status r4)))
                (is (= "7" (http/header r4 "retry-after")))
                (is (= 1 (:rejected (ring/stats s))))))
            (is (not (.tryAcquire entered)) "the queued and the rejected request never reached the handler")
            (.countDown gate)
            (is (= ["done /1" "done /2" "done /3"] (mapv #(:body (.get ^java.util.concurrent.Future % 30 TimeUnit/SECONDS)) [f1 f2 f3]))
                "the queued request ran once a permit came free")
            (is (= 1 (.availablePermits entered)) "the handler ran three times, not four")))))))

(deftest queue-timeout-answers-503
  (let [entered (Semaphore. 0)
        gate (CountDownLatch. 1)]
    (with-open [clients (Executors/newVirtualThreadPerTaskExecutor)]
      (with-server [s (gated-handler entered gate) {:max-in-flight 1 :max-queued 5 :queue-timeout-ms 100}]
        (let [f1 (submit clients #(http/http (:port s) "GET" "/held"))]
          (is (.tryAcquire entered 30 TimeUnit/SECONDS))
          (let [r (http/http (:port s) "GET" "/queued")]
            (is (= 503 (:status r)) "the queued request gave up after its queue timeout")
            (is (= "1" (http/header r "retry-after"))))
          (.countDown gate)
          (is (= 200 (:status (.get f1 30 TimeUnit/SECONDS)))))))))

(deftest request-timeout
  (testing "a handler that does not answer in time: 503, and its thread is interrupted"
    (let [interrupted (promise)
          handler (fn [_]
                    (try
                      (Thread/sleep 60000)
                      {:status 200 :headers {} :body "late"}
                      (catch InterruptedException e
                        (deliver interrupted true)
                        (throw e))))
          [r log] (capture-log
                   #(with-server [s handler {:request-timeout-ms 200}]
                      (let [r (http/http (:port s) "GET" "/slow")]
                        (is (true? (deref interrupted 30000 false)))
                        (await! (fn [] (zero? (:in-flight (ring/stats s)))))
                        r)))]
      (is (= 503 (:status r)))
      (is (= "Service Unavailable: the request timed out\n" (:body r)))
      (is (empty? (lines-containing log "ERROR")) "the interrupt that ends a timed-out handler is not an error")))
  (testing "a handler that answers in time is not disturbed"
    (with-server [s (fn [_] {:status 200 :headers {} :body "quick"}) {:request-timeout-ms 30000}]
      (is (= "quick" (:body (http/http (:port s) "GET" "/"))))))
  (testing "an asynchronous handler that never calls back"
    (with-server [s (fn [_ _respond _raise]) {:async? true :request-timeout-ms 200}]
      (is (= 503 (:status (http/http (:port s) "GET" "/never"))))
      (await! #(zero? (:in-flight (ring/stats s))))))
  (testing "the time spent waiting for a permit counts"
    (let [entered (Semaphore. 0)
          gate (CountDownLatch. 1)
          ;; Keeps its permit even when its own timeout interrupts it, so that the second
          ;; request can only wait.
          stubborn (fn [_]
                     (.release entered)
                     (loop []
                       (when-not (try (.await gate 60 TimeUnit/SECONDS) (catch InterruptedException _ false))
                         (recur)))
                     {:status 200 :headers {} :body "held"})]
      (with-open [clients (Executors/newVirtualThreadPerTaskExecutor)]
        (with-server [s stubborn {:max-in-flight 1 :request-timeout-ms 300}]
          (let [f1 (submit clients #(http/http (:port s) "GET" "/held"))]
            (is (.tryAcquire entered 30 TimeUnit/SECONDS))
            (is (= 503 (:status (http/http (:port s) "GET" "/waiting"))))
            (.countDown gate)
            (.get f1 30 TimeUnit/SECONDS)
            (is (zero? (.availablePermits entered)) "the request that timed out while waiting never ran")))))))
