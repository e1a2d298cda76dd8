(ns weft.ring.admission-test
  "Admission over real HTTP on 127.0.0.1 (decision 0900): one limiter shared by servers and
  other entry points, a limit that follows a connection pool, and work not started for a
  request whose deadline passed or whose client went away while it waited. After every test
  the limiter's in-flight count is back to 0: no permit leaks."
  (:require [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [weft.limit :as limit]
            [weft.pool :as pool]
            [weft.ring :as ring]
            [weft.ring.test-http :as http]
            [weft.ring.test-support :refer [with-server await!]])
  (:import (dev.weft.limit LimitExceededException Limiter)
           (java.net URI)
           (java.net.http HttpClient HttpClient$Version HttpRequest HttpResponse HttpResponse$BodyHandlers)
           (java.util.concurrent CompletableFuture CountDownLatch ExecutorService Executors Future Semaphore TimeUnit)
           (java.util.concurrent.atomic AtomicInteger)))

(set! *warn-on-reflection* true)

(defn- submit ^Future [^ExecutorService ex f]
  (.submit ex ^Callable f))

(defn- gated
  "A handler that releases `entered` and waits for `gate`."
  [^Semaphore entered ^CountDownLatch gate]
  (fn [_]
    (.release entered)
    (.await gate 60 TimeUnit/SECONDS)
    {:status 200 :body "done"}))

(deftest one-limiter-guards-two-servers-and-another-entry-point
  (let [shared (limit/limiter "db" 2 {:max-waiting 0})
        entered (Semaphore. 0)
        gate (CountDownLatch. 1)]
    (with-open [clients (Executors/newVirtualThreadPerTaskExecutor)]
      (with-server [a (gated entered gate) {:limiter shared}]
        (with-server [b (fn [_] {:status 200 :body "b"}) {:limiter shared :retry-after 2000}]
          (is (identical? shared (:limiter a)) "the server map has its limiter")
          (let [held (submit clients #(http/http (:port a) "GET" "/a"))]
            (is (.tryAcquire entered 30 TimeUnit/SECONDS))
            (testing "a queue consumer takes the other permit: the server next to it sheds"
              (with-open [_ (.acquire shared)]
                (let [r (http/http (:port b) "GET" "/b")]
                  (is (= 503 (:status r)))
                  (is (= "2" (http/header r "retry-after")))
                  (is (thrown? LimitExceededException (.acquire shared)) "and so is the consumer's next"))))
            (is (= 200 (:status (http/http (:port b) "GET" "/b"))) "the permit came back")
            (.countDown gate)
            (is (= 200 (:status (.get held 30 TimeUnit/SECONDS)))))
          (await! #(zero? (.inUse shared)))
          (is (= {:admitted 1 :shed 1 :rejected 1 :dropped 0 :limit 2}
                 (select-keys (ring/stats b) [:admitted :shed :rejected :dropped :limit]))
              "each server counts its own admissions; the limit is the shared limiter's")
          (is (= {:admitted 1 :shed 0} (select-keys (ring/stats a) [:admitted :shed]))))))
    (testing "stopped with a request in flight and started again: the limiter is not the server's, its permits come back"
      (let [entered (Semaphore. 0)
            never (CountDownLatch. 1)]
        (with-open [clients (Executors/newVirtualThreadPerTaskExecutor)]
          (let [s (ring/run-server (gated entered never) {:port 0 :host "127.0.0.1" :limiter shared})
                f (submit clients #(try (http/http (:port s) "GET" "/stuck") (catch Exception e e)))]
            (is (.tryAcquire entered 30 TimeUnit/SECONDS))
            (is (= 1 (.inUse shared)))
            (is (false? (ring/stop-server! s {:timeout 100})) "the stuck request was abandoned")
            (is (= 1 (:abandoned (ring/stats s))))
            (.get f 30 TimeUnit/SECONDS)
            (await! #(zero? (.inUse shared)))
            (with-server [again (fn [_] {:status 200 :body "again"}) {:limiter shared}]
              (is (= 200 (:status (http/http (:port again) "GET" "/")))))))))
    (is (zero? (.inUse shared)) "no permit leaked")))

(deftest limiter-options-are-checked
  (let [msg (fn [opts] (try (ring/run-server identity (merge {:port 0 :host "127.0.0.1"} opts)) nil
                            (catch dev.weft.clj.InvalidOptionException e (ex-message e))))
        shared (Limiter/of "l" 2)]
    (is (str/includes? (msg {:limiter 3}) ":limiter must be a dev.weft.limit.Limiter"))
    (is (str/includes? (msg {:limiter shared :max-concurrency 2}) ":max-concurrency and :limiter were both given"))
    (is (= (str "weft.ring/run-server: :max-waiting was given with :limiter, whose own rules say who waits and how long:"
                " set them when building it (Limiter/builder's .maxWaiting and .maxWait), or leave :max-waiting out")
           (msg {:limiter shared :max-waiting 2})))
    (is (str/includes? (msg {:limiter shared :max-wait 100}) ":max-wait was given with :limiter"))
    (testing "the deprecated :limit (an AdaptiveLimit) still works, with its waiting options"
      (let [adaptive (reify dev.weft.limit.AdaptiveLimit (limit [_] 3) (onSample [_ _ _ _ _]))]
        (with-server [s (fn [_] {:status 200}) {:limit adaptive :max-waiting 1}]
          (is (identical? adaptive (:limit s)))
          (is (= 3 (:limit (ring/stats s))))
          (is (= 1 (.maxWaiting ^Limiter (:limiter s)))))))))

(defn- fake-db
  "A pool of `size` fake connections; `queries` counts the queries run on them. With `gate`, a
  promise, each query waits for it (at most 30 s) while it holds its connection."
  ([size queries] (fake-db size queries nil))
  ([size ^AtomicInteger queries gate]
   (let [p (pool/pool "db" #(Object.) {:max-size size :max-wait 5000})]
     {:pool p
      :handler (fn [_]
                 (pool/with-resource [_ p]
                   (.incrementAndGet queries)
                   (when gate (deref gate 30000 nil))
                   (Thread/sleep 20)
                   {:status 200 :body "row"}))})))

(deftest the-pool-driven-limit-sheds-instead-of-parking
  (let [queries (AtomicInteger.)
        gate (promise)
        {p :pool handler :handler} (fake-db 2 queries gate)
        admission (pool/admission-limiter p {:target-wait 0})]
    (try
      (is (= 2 (.permits admission)) "a zero target: the pool's size, no queue")
      (with-open [clients (Executors/newVirtualThreadPerTaskExecutor)]
        (with-server [s handler {:limiter admission}]
          (let [fs (doall (for [i (range 12)] (submit clients #(http/http (:port s) "GET" (str "/" i)))))
                ;; The two admitted keep their connections until a third was shed: on a loaded
                ;; machine twelve requests may arrive one after another, each after the last ended.
                _ (try (await! #(pos? (:shed (ring/stats s)))) (finally (deliver gate true)))
                statuses (frequencies (map #(:status (.get ^Future % 30 TimeUnit/SECONDS)) fs))
                stats (ring/stats s)]
            (is (pos? (get statuses 503 0)) (str "some shed: " statuses))
            (is (pos? (get statuses 200 0)) (str "some served: " statuses))
            (is (= #{200 503} (set (keys statuses))))
            (is (= (get statuses 503) (:shed stats)))
            (is (= 12 (+ (:admitted stats) (:shed stats))))
            (is (= (get statuses 200) (.get queries)) "every admitted request ran its query")
            (is (zero? (:timeouts (pool/stats p))) "nobody waited out the pool's max-wait"))))
      (is (zero? (.inUse admission)) "no permit leaked")
      (finally (.close ^java.lang.AutoCloseable p)))
    (testing "bad input"
      (is (thrown-with-msg? dev.weft.clj.InvalidOptionException #":target-wait must be"
                            (pool/admission-limiter p {:target-wait -1})))
      (is (thrown-with-msg? IllegalArgumentException #"the pool is closed" (pool/admission-limiter p)))
      (is (thrown-with-msg? dev.weft.clj.InvalidOptionException #"must be a dev.weft.pool.Pool"
                            (pool/admission-limiter {}))))))

(deftest a-request-whose-deadline-passed-waiting-for-a-connection-runs-no-query
  (let [queries (AtomicInteger.)
        {p :pool handler :handler} (fake-db 1 queries)
        admission (pool/admission-limiter p {:target-wait 1000})]
    (try
      (with-server [s handler {:limiter admission :request-timeout 200}]
        (let [held (pool/borrow p)] ; the only connection is busy
          (let [r (http/http (:port s) "GET" "/late")]
            (is (= 503 (:status r)) "answered at its deadline"))
          (await! #(zero? (:in-flight (ring/stats s))))
          (pool/release! held))
        (is (zero? (.get queries)) "the query never ran: the borrow was interrupted at the deadline")
        (is (= 1 (:dropped (ring/stats s))))
        (is (= 200 (:status (http/http (:port s) "GET" "/on-time"))))
        (is (= 1 (.get queries))))
      (is (zero? (.inUse admission)) "no permit leaked")
      (finally (.close ^java.lang.AutoCloseable p)))))

(deftest a-client-that-goes-away-while-waiting-starts-no-work
  ;; Over HTTP/2 a client that gives up resets its stream, which the server sees at once (over
  ;; HTTP/1 a request without a body is not read again, so its request timeout is its deadline).
  (let [entered (Semaphore. 0)
        gate (CountDownLatch. 1)
        calls (AtomicInteger.)
        shared (limit/limiter "one" 1 {:max-waiting 5})
        client (-> (HttpClient/newBuilder) (.version HttpClient$Version/HTTP_2) (.build))
        handler (fn [req]
                  (.incrementAndGet calls)
                  (when (= "/hold" (:uri req))
                    (.release entered)
                    (.await gate 60 TimeUnit/SECONDS))
                  {:status 200 :body "ok"})]
    (with-server [s handler {:limiter shared :http2? true}]
      (let [uri #(URI/create (str "http://127.0.0.1:" (:port s) %))
            get! (fn [path]
                   (.sendAsync client (.build (HttpRequest/newBuilder ^URI (uri path))) (HttpResponse$BodyHandlers/ofString)))]
        (is (= 200 (.statusCode ^HttpResponse (.get ^CompletableFuture (get! "/warm") 30 TimeUnit/SECONDS))))
        (let [^CompletableFuture hold (get! "/hold")]
          (is (.tryAcquire entered 30 TimeUnit/SECONDS))
          (let [^CompletableFuture waiting (get! "/gone")]
            (await! #(= 1 (.waiting shared)))
            (.cancel waiting true)
            (await! #(= 1 (:dropped (ring/stats s)))))
          (.countDown gate)
          (is (= 200 (.statusCode ^HttpResponse (.get hold 30 TimeUnit/SECONDS)))))
        (await! #(zero? (:in-flight (ring/stats s))))
        (is (= 2 (.get calls)) "the handler never ran for the client that had gone")
        (is (zero? (.inUse shared)) "no permit leaked")))
    (.close client)))
