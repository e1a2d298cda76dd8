(ns weft.thread-test
  (:require [clojure.test :refer [deftest is testing]]
            [weft.thread :as w])
  (:import (java.util.concurrent CancellationException CountDownLatch ExecutorService TimeUnit)
           (dev.weft.thread ThreadPolicy)))

(def ^:dynamic *ctx* :root)

(deftest vthread-runs-on-a-named-virtual-thread-with-bindings
  (let [seen (promise)
        t (binding [*ctx* :bound]
            (w/vthread (deliver seen [(w/virtual-thread?) (.getName (Thread/currentThread)) *ctx*])))]
    (is (instance? Thread t))
    (.join ^Thread t)
    (let [[virtual? name ctx] @seen]
      (is virtual?)
      (is (re-matches #"weft-vthread-\d+" name))
      (is (= :bound ctx)))))

(deftest vfuture-has-future-semantics
  (testing "value and bindings"
    (let [f (binding [*ctx* :bound] (w/vfuture [(w/virtual-thread?) *ctx*]))]
      (is (future? f))
      (is (= [true :bound] @f))
      (is (realized? f))
      (is (future-done? f))))
  (testing "deref with timeout returns the timeout value, then the result"
    (let [latch (CountDownLatch. 1)
          f (w/vfuture (.await latch) :done)]
      (is (= ::timeout (deref f 10 ::timeout)))
      (is (not (realized? f)))
      (.countDown latch)
      (is (= :done (deref f 10000 ::timeout)))))
  (testing "the body's own exception surfaces on deref"
    (let [f (w/vfuture (throw (ex-info "boom" {:code 7})))]
      (is (= {:code 7} (try @f (catch clojure.lang.ExceptionInfo e (ex-data e)))))
      (is (thrown? clojure.lang.ExceptionInfo (deref f 1000 nil)))
      (is (thrown? java.util.concurrent.ExecutionException (.get ^java.util.concurrent.Future f))
          "the Java Future contract is kept")))
  (testing "future-cancel interrupts the thread"
    (let [interrupted (promise)
          started (promise)
          f (w/vfuture (deliver started true)
                       (try (Thread/sleep 60000)
                            (catch InterruptedException _ (deliver interrupted true))))]
      @started
      (is (future-cancel f))
      (is (future-cancelled? f))
      (is (true? (deref interrupted 10000 false)))
      (is (thrown? CancellationException @f)))))

(deftest executor-follows-the-policy
  (with-open [^ExecutorService ex (w/executor "clj" {:threads :virtual})]
    (is (= [true "weft-clj-1"]
           @(.submit ex ^Callable (fn [] [(w/virtual-thread?) (.getName (Thread/currentThread))])))))
  (with-open [^ExecutorService ex (w/executor "clj-pool" {:threads :platform})]
    (is (false? @(.submit ex ^Callable (fn [] (w/virtual-thread?))))))
  (is (= "weft-f-1" (.getName (.newThread (w/thread-factory "f" {:threads "virtual"}) (fn []))))))

(deftest thread-policy-accepts-keywords-and-rejects-the-rest
  (is (= ThreadPolicy/PLATFORM (w/thread-policy :platform)))
  (is (= ThreadPolicy/AUTO (w/thread-policy "auto")))
  (is (thrown-with-msg? IllegalArgumentException #"virtual, platform or auto" (w/thread-policy :green)))
  (is (thrown-with-msg? IllegalArgumentException #":virtual, :platform or :auto" (w/thread-policy 42)))
  (is (thrown-with-msg? IllegalArgumentException
                        #"weft.thread/executor: :threads must be :virtual, :platform, :auto or a dev.weft.thread.ThreadPolicy; got :green"
                        (w/executor "x" {:threads :green})))
  (is (thrown-with-msg? IllegalArgumentException #"weft.thread/thread-factory: unknown option :thread \(did you mean :threads\?\)"
                        (w/thread-factory "x" {:thread :virtual}))))

(deftest scheduler-snapshot-is-data
  (let [s (w/scheduler-snapshot)]
    (is (pos? (:live-platform-threads s)))
    (is (contains? s :mounted-virtual-threads))
    (if (>= (.feature (Runtime/version)) 24)
      (is (pos? (:parallelism s)))
      (is (re-find #"JDK 24" (:unavailable-reason s))))))
