(ns weft.ring.test-support
  "Servers and log capture for weft.ring's tests."
  (:require [clojure.java.io :as io]
            [clojure.java.shell :as sh]
            [clojure.string :as str]
            [weft.ring :as ring])
  (:import (java.io ByteArrayOutputStream PrintStream)
           (java.nio.charset StandardCharsets)))

(set! *warn-on-reflection* true)

(defmacro with-server
  "Runs `handler` on a free port of 127.0.0.1 with `opts`, binds the server to `sym`, runs
  `body`, and stops the server (draining for at most 10 s) however `body` ends."
  [[sym handler opts] & body]
  `(let [~sym (ring/run-server ~handler (merge {:port 0 :host "127.0.0.1"} ~opts))]
     (try
       ~@body
       (finally
         (ring/stop-server! ~sym {:timeout-ms 10000})))))

(def ^:private err-lock (Object.))

(defn capture-log
  "Calls `f` with System.err captured (slf4j-simple writes there) and returns
  [result captured-text]. Log lines written by other threads while `f` runs are captured
  too; `f` must wait for whatever it expects to be logged."
  [f]
  (locking err-lock
    (let [original System/err
          buf (ByteArrayOutputStream.)
          ps (PrintStream. buf true "UTF-8")]
      (System/setErr ps)
      (try
        (let [result (f)]
          [result (String. (.toByteArray buf) StandardCharsets/UTF_8)])
        (finally
          (System/setErr original)
          (.print original (String. (.toByteArray buf) StandardCharsets/UTF_8)))))))

(defn occurrences
  "How many times `part` occurs in `text`."
  [^String text ^String part]
  (count (re-seq (re-pattern (java.util.regex.Pattern/quote part)) text)))

(defn await!
  "Waits until (pred) is truthy, polling; throws after `timeout-ms` (a hang guard, never
  an assertion about speed)."
  ([pred] (await! pred 30000))
  ([pred timeout-ms]
   (let [deadline (+ (System/currentTimeMillis) timeout-ms)]
     (loop []
       (or (pred)
           (if (> (System/currentTimeMillis) deadline)
             (throw (ex-info "condition not reached in time (hang guard)" {}))
             (do (Thread/sleep 5) (recur))))))))

(defn lines-containing
  "The lines of `text` that contain `part`."
  [text part]
  (filter #(str/includes? % part) (str/split-lines text)))

(def password
  "The password of the key stores `make-keystore!` writes."
  "changeit")

(defn- keytool [& args]
  (let [bin (str (System/getProperty "java.home") "/bin/keytool")
        r (apply sh/sh bin args)]
    (when-not (zero? (:exit r))
      (throw (ex-info (str "keytool failed: " (:err r) (:out r)) {:args args})))
    r))

(defn make-keystore!
  "A PKCS12 key store at `file` with a new self-signed certificate for CN=`cn` (localhost and 127.0.0.1)."
  [file cn]
  (io/delete-file file true)
  (keytool "-genkeypair" "-alias" "server" "-keyalg" "EC" "-groupname" "secp256r1" "-validity" "2"
           "-dname" (str "CN=" cn) "-ext" "SAN=dns:localhost,ip:127.0.0.1"
           "-keystore" (str file) "-storetype" "PKCS12" "-storepass" password "-keypass" password))
