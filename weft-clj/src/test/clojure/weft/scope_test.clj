(ns weft.scope-test
  (:require [clojure.test :refer [deftest is testing]]
            [clojure.test.check.clojure-test :refer [defspec]]
            [clojure.test.check.generators :as gen]
            [clojure.test.check.properties :as prop]
            [weft.context :refer [defcontext with-context]]
            [weft.thread :as w]
            [weft.scope :as s :refer [with-scope fork join]])
  (:import (java.util.concurrent CancellationException CountDownLatch TimeoutException)
           (java.util.concurrent.atomic AtomicInteger)))

(defcontext path "Where in a test tree code runs.")
(def ^:dynamic *dyn* :root)

(defn- block-until-interrupted [^CountDownLatch interrupted]
  (try (.await (CountDownLatch. 1))
       (catch InterruptedException e
         (.countDown interrupted)
         (throw e))))

(deftest with-scope-forks-and-joins
  (is (= [3 true "weft-two-"]
         (with-scope [sc {:name "two"}]
           (let [a (fork sc (+ 1 2))
                 b (fork sc [(w/virtual-thread?) (subs (.getName (Thread/currentThread)) 0 9)])]
             (join sc)
             (into [@a] @b))))))

(deftest fail-fast-throws-the-original-and-cancels-siblings
  (let [interrupted (CountDownLatch. 1)
        started (CountDownLatch. 1)
        boom (ex-info "boom" {:code 7})
        forks (atom nil)]
    (is (identical? boom
                    (try (with-scope [sc]
                           (let [slow (fork sc (.countDown started) (block-until-interrupted interrupted))
                                 bad (fork sc (.await started) (throw boom))]
                             (reset! forks [slow bad])
                             (join sc)))
                         (catch clojure.lang.ExceptionInfo e e))))
    (is (zero? (.getCount interrupted)))
    (let [[slow bad] @forks]
      (is (= :cancelled (s/state slow)))
      (is (thrown? CancellationException @slow))
      (is (= :failed (s/state bad)))
      (is (identical? boom (s/exception bad)))
      (is (thrown-with-msg? clojure.lang.ExceptionInfo #"boom" @bad)))))

(deftest scope-misuse-is-a-clear-error
  (testing "fork from another thread"
    (with-scope [sc {:name "mine"}]
      (let [e @(w/vfuture (try (fork sc 1) (catch Throwable t t)))]
        (is (instance? java.lang.WrongThreadException e))
        (is (re-find #"only the owner of scope mine" (ex-message e))))))
  (testing "fork after close"
    (let [leaked (with-scope [sc {:name "gone"}] sc)]
      (is (thrown-with-msg? IllegalStateException #"scope gone is closed" (fork leaked 1)))))
  (testing "forks never joined"
    (is (thrown-with-msg? IllegalStateException #"Join the scope before it closes, or cancel it .*Clojure: weft.scope/join / cancel!"
                          (with-scope [sc] (fork sc 1) :no-join))))
  (testing "a body that throws cancels its forks and its exception goes on"
    (let [interrupted (CountDownLatch. 1)
          started (CountDownLatch. 1)]
      (is (thrown-with-msg? clojure.lang.ExceptionInfo #"body"
                            (with-scope [sc]
                              (fork sc (.countDown started) (block-until-interrupted interrupted))
                              (.await started)
                              (throw (ex-info "body" {})))))
      (is (zero? (.getCount interrupted)))))
  (testing "bad options"
    (is (thrown-with-msg? IllegalArgumentException #"weft.scope/pmap: unknown option :timout \(did you mean :timeout\?\)"
                          (s/pmap inc [1] {:timout 5})))
    (is (thrown-with-msg? IllegalArgumentException #":policy must be one of"
                          (with-scope [sc {:policy :fastest}] sc)))
    (is (thrown-with-msg? IllegalArgumentException #":policy is for with-scope"
                          (s/pmap inc [1] {:policy :await-all})))
    (is (thrown-with-msg? IllegalArgumentException #":timeout must be milliseconds"
                          (s/pmap inc [1] {:timeout -1})))
    (is (thrown-with-msg? IllegalArgumentException #":timeout must be milliseconds"
                          (s/pmap inc [1] {:timeout (java.time.Duration/ofMillis -1)})))
    (is (thrown-with-msg? IllegalArgumentException #"weft.scope/pmap: options must be a map, like \{:max-concurrency 16\}; got \[:x\]"
                          (s/pmap inc [1 2] [:x])))
    (is (thrown-with-msg? IllegalArgumentException #"weft.scope/with-scope: options must be a map"
                          (with-scope [sc [:x]] sc)))
    (is (thrown-with-msg? IllegalArgumentException #":timeout and :deadline were both given; keep one"
                          (s/pmap inc [1] {:timeout 10 :deadline (java.time.Instant/now)})))
    (is (thrown-with-msg? IllegalArgumentException #":max-concurrency and :limiter were both given; keep one"
                          (with-scope [sc {:max-concurrency 1 :limiter (dev.weft.limit.Limiter/of "l" 5)}] sc)))
    (is (= [2 3] (s/pmap inc [1 2] {:timeout 1500.5})) "fractional milliseconds are a timeout too")
    (let [e (try (with-scope [sc {:max-concurency 2}] sc) (catch dev.weft.clj.InvalidOptionException e e))]
      (is (instance? IllegalArgumentException e) "callers that caught IllegalArgumentException still do")
      (is (= {:weft/error :weft/invalid-option :fn "weft.scope/with-scope" :unknown [:max-concurency]
              :did-you-mean {:max-concurency :max-concurrency}}
             (select-keys (ex-data e) [:weft/error :fn :unknown :did-you-mean]))))
    (is (= [2 3] (s/pmap inc [1 2] {:my.app/trace-id "t-1"})) "namespaced keys are the caller's own, ignored")))

(deftest a-policy-may-be-a-joiner-object
  (let [first-two (let [got (java.util.concurrent.ConcurrentLinkedQueue.)]
                    (reify dev.weft.scope.Joiner
                      (onComplete [_ subtask]
                        (when (= dev.weft.scope.Subtask$State/SUCCESS (.state ^dev.weft.scope.Subtask subtask))
                          (.add got (.get ^dev.weft.scope.Subtask subtask)))
                        (>= (.size got) 2))
                      (result [_] (vec (take 2 got)))))]
    (is (= #{1 2} (set (with-scope [sc {:policy first-two}]
                         (fork sc 1)
                         (fork sc 2)
                         (join sc))))
        "join returns the joiner's result"))
  (is (= :a (with-scope [sc {:policy (dev.weft.scope.Joiner/firstSuccess)}]
              (let [a (fork sc :a)]
                (join sc)
                @a)))))

(deftest states-are-keywords-in-any-locale
  (let [default (java.util.Locale/getDefault)]
    (try
      (java.util.Locale/setDefault (java.util.Locale/forLanguageTag "tr-TR"))   ; lower-cases I to dotless ı
      (with-scope [sc {:policy :await-all}]
        (let [ok (fork sc :ok)
              bad (fork sc (throw (ex-info "x" {})))]
          (join sc)
          (is (= :success (s/state ok)))
          (is (= :failed (s/state bad)))))
      (finally (java.util.Locale/setDefault default)))))

(deftest a-fork-can-be-derefed-with-a-timeout
  ;; Released one after the other: a sibling's failure cancels a fork still running (the
  ;; default policy), so `failing` may only end once `f` has its value.
  (let [release-f (CountDownLatch. 1)
        release-failing (CountDownLatch. 1)]
    (with-scope [sc]
      (let [f (fork sc (.await release-f) :done)
            failing (fork sc (.await release-failing) (throw (ex-info "bad" {})))]
        (is (= :pending (deref f 10 :pending)) "still running: the timeout value after waiting")
        (is (= :pending (deref f -5 :pending)) "a negative timeout waits not at all, as for a future")
        (is (not (realized? f)))
        (.countDown release-f)
        (is (= :done (deref f 30000 :pending)) "completed within the wait: its value")
        (.countDown release-failing)
        (is (thrown-with-msg? clojure.lang.ExceptionInfo #"bad" (deref failing 30000 :pending))
            "a failed fork rethrows its own exception")
        (is (thrown? clojure.lang.ExceptionInfo (join sc)))))))

(deftest deadlines-cancel
  (let [interrupted (CountDownLatch. 1)
        started (CountDownLatch. 1)]
    (is (thrown-with-msg? TimeoutException #"deadline of PT0.03S"
                          (s/pmap (fn [_] (.countDown started) (block-until-interrupted interrupted)) [1] {:timeout 30})))
    (is (or (= 1 (.getCount started)) (zero? (.getCount interrupted)))
        "under load the deadline may pass before the fork starts; a fork that started was interrupted")))

(deftest await-all-and-first-success-policies
  (with-scope [sc {:policy :await-all}]
    (let [ok (fork sc :ok)
          bad (fork sc (throw (ex-info "bad" {})))]
      (join sc)
      (is (= :ok @ok))
      (is (= "bad" (ex-message (s/exception bad))))))
  (is (= :fast (s/race #(do (Thread/sleep 60000) :slow) (constantly :fast))))
  (is (= :late-winner (s/race #(throw (ex-info "a" {})) #(do (Thread/sleep 10) :late-winner))))
  (let [e (try (s/race #(throw (ex-info "a" {})) #(throw (ex-info "b" {})))
               (catch clojure.lang.ExceptionInfo e e))]
    (is (#{"a" "b"} (ex-message e)))
    (is (= 1 (count (.getSuppressed ^Throwable e)))))
  (is (thrown-with-msg? IllegalArgumentException #"at least one" (s/race))))

(deftest pmap-is-ordered-capped-and-conveys-context
  (let [running (AtomicInteger.)
        peak (AtomicInteger.)]
    (is (= (vec (range 1 41))
           (s/pmap (fn [x]
                     (let [n (.incrementAndGet running)]
                       (.accumulateAndGet peak n (reify java.util.function.IntBinaryOperator
                                                   (applyAsInt [_ a b] (max a b)))))
                     (Thread/sleep 1)
                     (.decrementAndGet running)
                     (inc x))
                   (range 40)
                   {:max-concurrency 4})))
    (is (<= (.get peak) 4)))
  (is (= [[:ann :bound] [:ann :bound]]
         (binding [*dyn* :bound]
           (with-context [path :ann]
             (s/pmap (fn [_] [@path *dyn*]) [1 2])))))
  (is (= [] (s/pmap inc [])))
  (is (= [1 2 3] (s/pcalls (constantly 1) (constantly 2) (constantly 3) {:max-concurrency 1})))
  (is (= "3" (try (s/pmap #(if (= 3 %) (throw (ex-info (str %) {})) %) (range 10))
                  (catch clojure.lang.ExceptionInfo e (ex-message e))))))

(deftest current-scope-is-discoverable
  (is (nil? (s/current-scope)))
  (with-scope [sc]
    (is (identical? sc (s/current-scope)))
    (let [seen (fork sc (s/current-scope))]
      (join sc)
      (is (identical? sc @seen)))))

;; ---- property: random trees of pmap / pcalls / race -------------------------------------

(def leaf-gen
  (gen/hash-map :kind (gen/elements [:ok :ok :fail :hang]) :delay (gen/choose 0 2)))

(def tree-gen
  (gen/recursive-gen
   (fn [inner] (gen/hash-map :op (gen/elements [:pmap :pcalls :race]) :children (gen/vector inner 0 4)))
   leaf-gen))

(defn- hangs? [node]
  (if (:op node) (some hangs? (:children node)) (= :hang (:kind node))))

(defn- model
  "What `node` may do: {:ok? bool, :throws #{identity}}."
  [node p]
  (if-let [op (:op node)]
    (let [kids (map-indexed (fn [i c] (model c (str p "." i))) (:children node))
          failures (into #{} (mapcat :throws) kids)
          timeout (when (hangs? node) #{[:timeout p]})]
      (case op
        (:pmap :pcalls) {:ok? (every? :ok? kids) :throws (into failures timeout)}
        :race {:ok? (boolean (some :ok? kids))
               :throws (cond-> (into failures timeout) (empty? kids) (conj [:empty p]))}))
    (case (:kind node)
      :ok {:ok? true :throws #{}}
      :fail {:ok? false :throws #{[:boom p]}}
      :hang {:ok? false :throws #{}})))

(defn- identity-of [^Throwable e]
  (cond
    (ex-data e) [:boom (:path (ex-data e))]
    (instance? TimeoutException e) [:timeout (second (re-find #"^scope (\S+):" (ex-message e)))]
    (instance? IllegalArgumentException e) [:empty (:path (ex-data (.getCause e)))]
    :else [:unexpected (str e)]))

(defn- run-tree [node p expected-path rec]
  (swap! rec update :entered inc)
  (when-not (= p "r") ; the root runs in the test's own thread
    (swap! rec update :threads conj (Thread/currentThread)))
  (try
    (when-not (= expected-path @path)
      (swap! rec update :violations conj [p :saw @path :expected expected-path]))
    (if-let [op (:op node)]
      (with-context [path p]
        (let [opts (cond-> {:name p} (hangs? node) (assoc :timeout 200))
              fns (map-indexed (fn [i c] #(run-tree c (str p "." i) p rec)) (:children node))]
          (case op
            :pmap (s/pmap #(%) fns opts)
            :pcalls (apply s/pcalls (concat fns [opts]))
            :race (if (seq fns)
                    (apply s/race (concat fns [opts]))
                    (throw (IllegalArgumentException. "empty race" (ex-info "" {:path p})))))))
      (do (Thread/sleep (long (:delay node)))
          (case (:kind node)
            :ok p
            :fail (throw (ex-info "boom" {:path p}))
            :hang (do (.await (CountDownLatch. 1)) :never))))
    (finally (swap! rec update :exited inc))))

(defspec random-trees-end-cleanly-with-allowed-outcomes 60
  (prop/for-all [tree (gen/fmap (fn [t] (if (:op t) t {:op :pmap :children [t]})) tree-gen)]
    (let [rec (atom {:entered 0 :exited 0 :threads [] :violations []})
          m (model tree "r")
          outcome (try {:value (with-context [path "top"] (run-tree tree "r" "top" rec))}
                       (catch Throwable e {:error e}))
          {:keys [entered exited threads violations]} @rec]
      (and (= entered exited)
           (every? (fn [^Thread t] (.join t 30000) (not (.isAlive t))) threads)
           (empty? violations)
           (nil? @path)
           (if-let [e (:error outcome)]
             (and (contains? (:throws m) (identity-of e))
                  (every? #(contains? (:throws m) (identity-of %)) (.getSuppressed ^Throwable e)))
             (:ok? m))))))
