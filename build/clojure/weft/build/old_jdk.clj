(ns weft.build.old-jdk
  "Loads a module's public namespaces on a JDK older than weft supports (Debian's default JDK 17,
  which Debian's `lein` runs on), in a JVM of its own, for that module's clojure.test tests: what
  a user on that JDK sees. The JDK is the system property weft.test.old-jdk (a Java home), else
  Debian's /usr/lib/jvm/java-17-openjdk-amd64; the classpath is the test's own (weft's classes
  are never loaded: the check runs first)."
  (:require [clojure.java.io :as io]
            [clojure.string :as str]
            [clojure.test :refer [is]]
            [weft.build.module :as module])
  (:import (java.io File)
           (java.util.concurrent TimeUnit)))

(set! *warn-on-reflection* true)

(defn java
  "The old JDK's java launcher, or nil when it is not installed."
  []
  (let [home (or (System/getProperty "weft.test.old-jdk") "/usr/lib/jvm/java-17-openjdk-amd64")
        f (io/file home "bin" "java")]
    (when (.canExecute f) (str f))))

(defn load-ns
  "Runs `(require 'ns-sym)` with clojure.main on `java`; returns `{:exit n :out s}` (stdout and
  stderr together)."
  [java ns-sym]
  (let [^java.util.List command [java "-cp" (System/getProperty "java.class.path") "clojure.main" "-e"
                                 (str "(println \"Java\" (System/getProperty \"java.specification.version\")) (require '" ns-sym ")")]
        p (-> (ProcessBuilder. command) (.redirectErrorStream true) (.start))
        out (future (slurp (.getInputStream p)))]
    (if (.waitFor p 120 TimeUnit/SECONDS)
      {:exit (.exitValue p) :out @out}
      (do (.destroyForcibly p)
          {:exit -1 :out (str @out "\n(killed after 120 s)")}))))

(defn check-module!
  "Asserts that loading each public namespace of the module on the old JDK fails with one line
  naming the Java weft needs, not with a compile error about Thread/ofVirtual. Says so and checks
  nothing when that JDK is not installed."
  []
  (if-let [java (java)]
    (let [nss (module/public-namespaces)]
      (is (seq nss) "the module has public namespaces")
      (doseq [n nss]
        (let [{:keys [exit out]} (load-ns java n)
              running (second (re-find #"(?m)^Java (\S+)" out))]
          (is (= "17" running) (str "the subprocess runs JDK 17:\n" out))
          (is (not= 0 exit) (str "(require '" n ") on Java " running " must fail"))
          (is (re-find #"(?m)^weft needs Java 21 or newer \(virtual threads\); this process runs Java 17 \(.*\): run it on a JDK 21 or newer \(set JAVA_HOME, or :java-cmd in project.clj\)$" out)
              (str "(require '" n ") names the Java it needs in one line:\n" out))
          (is (not (re-find #"ofVirtual|No matching method|Unable to resolve" out))
              (str "(require '" n ") fails on the version check, not before:\n" out)))))
    (println "weft.build.old-jdk: no JDK 17 at /usr/lib/jvm/java-17-openjdk-amd64 (or -Dweft.test.old-jdk): not checked")))
