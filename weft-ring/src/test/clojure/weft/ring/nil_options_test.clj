(ns weft.ring.nil-options-test
  "Options documented \"nil for ...\" mean exactly that: the options tables of weft-ring (and of
  weft-clj, whose namespaces it loads) are walked and each nilable option's nil is checked against
  what its docstring says; the two options whose nil means \"none\" are checked over real HTTP."
  (:require [clojure.test :refer [deftest is testing]]
            [weft.impl.options :as options]
            [weft.ring :as ring]
            [weft.ring.sse]
            [weft.ring.impl.server]
            [weft.ring.test-http :as http]
            [weft.ring.test-support :refer [with-server]])
  (:import (dev.weft.ring RingHandler)
           (java.io InputStream)
           (java.net Socket)
           (java.nio.charset StandardCharsets)))

(set! *warn-on-reflection* true)

(deftest every-nilable-option-means-what-its-doc-says
  (let [specs (filter #(re-find #"^weft\.ring" (:fn %)) (options/specs))]
    (is (= #{"weft.ring/run-server" "weft.ring/stop-server!" "weft.ring.sse/event-stream"}
           (set (map :fn specs)))
        "the walk sees every options table of weft-ring")
    (doseq [spec specs]
      (is (empty? (options/nil-problems spec)) (:fn spec)))
    (testing "the options documented \"nil for ...\" are the ones doc/options.md lists so"
      (is (= #{:max-body-bytes :request-read-timeout}
             (set (for [spec specs o (:options spec) :when (:nil o)] (:key o))))))))

(def ^:private body-bytes (* 50 1000 1000))

(defn- counting-handler
  "Reads the request body to its end and answers with the number of bytes read."
  [req]
  (let [^InputStream in (:body req)
        buf (byte-array 65536)]
    (loop [n 0]
      (let [r (.read in buf)]
        (if (neg? r)
          {:status 200 :headers {"content-type" "text/plain"} :body (str n)}
          (recur (+ n r)))))))

(defn- send-body!
  "Writes `n` bytes of body to `socket`, as one piece (Content-Length) or in chunks of 64 KiB."
  [^Socket socket n chunked?]
  (let [out (.getOutputStream socket)
        buf (byte-array 65536 (byte 120))]
    (loop [left n]
      (when (pos? left)
        (let [k (int (min left (alength buf)))]
          (when chunked? (.write out (.getBytes (str (Integer/toHexString k) "\r\n") StandardCharsets/ISO_8859_1)))
          (.write out buf 0 k)
          (when chunked? (.write out (.getBytes "\r\n" StandardCharsets/ISO_8859_1)))
          (recur (- left k)))))
    (when chunked? (.write out (.getBytes "0\r\n\r\n" StandardCharsets/ISO_8859_1)))
    (.flush out)))

(defn- post-50mb [port chunked?]
  (with-open [s (http/connect port)]
    (http/send! s (str "POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                       (if chunked? "Transfer-Encoding: chunked\r\n" (str "Content-Length: " body-bytes "\r\n"))
                       "\r\n"))
    (send-body! s body-bytes chunked?)
    (http/read-response s)))

(deftest max-body-bytes-nil-reads-any-body
  (with-server [s counting-handler {:max-body-bytes nil}]
    (doseq [chunked? [false true]]
      (testing (if chunked? "chunked" "with Content-Length")
        (let [r (post-50mb (:port s) chunked?)]
          (is (= 200 (:status r)))
          (is (= (str body-bytes) (:body r)) "the handler read the 50 MB body to its end")))))
  (testing "the default (10 MiB) still refuses the same body: nil is not \"not given\""
    (with-server [s counting-handler {}]
      (with-open [sock (http/connect (:port s))]
        (http/send! sock (str "POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                              "Content-Length: " body-bytes "\r\n\r\n"))
        (is (= 413 (:status (http/read-response sock))))))))

(defn- read-deadlines
  "The handler's read-deadline checker (nil when requests have no read deadline)."
  [^RingHandler h]
  (.get (doto (.getDeclaredField RingHandler "readDeadlines") (.setAccessible true)) h))

(deftest request-read-timeout-nil-sets-no-deadline
  (with-server [s counting-handler {:request-read-timeout nil}]
    (is (nil? (read-deadlines (:handler s))) "no deadline checker runs")
    (is (= 200 (:status (http/http (:port s) "GET" "/")))))
  (with-server [s counting-handler {}]
    (is (some? (read-deadlines (:handler s))) "by default one does (30 s)")))
