(ns weft.pool-test
  (:require [clojure.test :refer [deftest is testing]]
            [clojure.test.check :as tc]
            [clojure.test.check.generators :as gen]
            [clojure.test.check.properties :as prop]
            [weft.pool :as pool])
  (:import (dev.weft.clj InvalidOptionException)
           (dev.weft.pool Lease PoolClosedException PoolTimeoutException)
           (java.util.concurrent.atomic AtomicInteger)))

(set! *warn-on-reflection* true)

(defn- counting-factory []
  (let [n (AtomicInteger.) open (atom #{}) destroyed (atom [])]
    {:create (fn [] (let [r {:id (.incrementAndGet n) :state (atom :clean)}] (swap! open conj r) r))
     :destroy (fn [r] (swap! open disj r) (swap! destroyed conj r))
     :open open
     :destroyed destroyed}))

(deftest with-resource-borrows-and-returns
  (let [{:keys [create destroy open]} (counting-factory)]
    (with-open [p (pool/pool "clj-test" create {:max-size 2 :destroy destroy :reset #(reset! (:state %) :clean)})]
      (let [first-id (pool/with-resource [r p]
                       (reset! (:state r) :dirty)
                       (is (= 1 (:in-use (pool/stats p))))
                       (:id r))]
        (pool/with-resource [r p]
          (is (= first-id (:id r)) "the same resource again")
          (is (= :clean @(:state r)) ":reset ran on return"))
        (is (= {:in-use 0 :idle 1 :created 1}
               (select-keys (pool/stats p) [:in-use :idle :created])))))
    (is (empty? @open) "closing the pool destroyed the idle resource")))

(deftest invalidate-destroys
  (let [{:keys [create destroy destroyed]} (counting-factory)]
    (with-open [p (pool/pool :clj-invalidate create {:max-size 1 :destroy destroy})]
      (let [lease (pool/borrow p)]
        (pool/invalidate! lease)
        (pool/release! lease)
        (is (= 1 (count @destroyed)))
        (is (= 1 (:destroyed (pool/stats p))))))))

(deftest a-timeout-names-the-pool
  (let [{:keys [create destroy]} (counting-factory)]
    (with-open [p (pool/pool "clj-timeout" create {:max-size 1 :destroy destroy})]
      (pool/with-resource [_ p]
        (let [e (is (thrown? PoolTimeoutException (pool/borrow p 50)))]
          (is (re-find #"pool \"clj-timeout\".*maxSize 1" (ex-message e))))))))

(deftest closing-fails-borrows
  (let [{:keys [create destroy]} (counting-factory)
        p (pool/pool "clj-closed" create {:max-size 1 :destroy destroy :max-wait (java.time.Duration/ofSeconds 30)})
        held (pool/borrow p)
        waiter (future (try (pool/borrow p) (catch PoolClosedException e :closed)))]
    (while (zero? (:waiting (pool/stats p))) (Thread/sleep 5))
    (future (pool/close! p 5000))
    (is (= :closed (deref waiter 5000 :still-waiting)))
    (pool/release! held)
    (is (thrown? PoolClosedException (pool/borrow p)))))

(deftest options-are-checked-by-name
  (let [{:keys [create]} (counting-factory)]
    (testing "an unknown option names the closest known one"
      (let [e (is (thrown? InvalidOptionException (pool/pool "x" create {:max-sise 3})))]
        (is (re-find #":max-size" (ex-message e)))))
    (testing "a negative duration"
      (is (thrown? InvalidOptionException (pool/pool "x" create {:max-wait -1}))))
    (testing "create must be a function"
      (is (thrown? InvalidOptionException (pool/pool "x" 42 {}))))))

(def ^:private ops-gen
  (gen/vector (gen/frequency [[10 (gen/return :borrow)] [7 (gen/return :release)]
                              [3 (gen/return :invalidate)] [1 (gen/return :close)]])
              1 40))

(defn- live-ids
  "The ids of the resources held through leases that have not ended."
  [held]
  (map #(:id (.get ^Lease %)) (remove #(.isEnded ^Lease %) held)))

(defn- run-ops
  "Runs `ops` on a fresh pool of `max-size`; true when no step broke an invariant."
  [ops max-size]
  (let [{:keys [create destroy open]} (counting-factory)
        p (pool/pool "clj-prop" create {:max-size max-size :destroy destroy :close-timeout 0})]
    (loop [[op & more] ops held [] closed? false ok? true]
      (let [ids (live-ids held)
            ok? (and ok? (<= (count @open) max-size) (= (count ids) (count (distinct ids))))]
        (case op
          nil (do (run! pool/release! held)
                  (pool/close! p 1000)
                  (and ok? (empty? @open)))
          :borrow (let [l (try (pool/borrow p (if (< (count held) max-size) 5000 0))
                               (catch PoolTimeoutException _ :timeout)
                               (catch PoolClosedException _ :closed))
                        expected? (case l
                                    :timeout (= max-size (count held))
                                    :closed closed?
                                    (not closed?))]
                    (recur more (if (instance? Lease l) (conj held l) held) closed? (and ok? expected?)))
          (:release :invalidate) (if (seq held)
                                   (do (if (= op :release) (pool/release! (peek held)) (pool/invalidate! (peek held)))
                                       (recur more (pop held) closed? ok?))
                                   (recur more held closed? ok?))
          :close (do (pool/close! p 0) (recur more held true ok?)))))))

(deftest property-never-more-than-max-open-and-never-shared
  (let [result (tc/quick-check 40 (prop/for-all [ops ops-gen max-size (gen/choose 1 3)]
                                    (run-ops ops max-size)))]
    (is (:pass? result) (pr-str (select-keys result [:shrunk :fail])))))
