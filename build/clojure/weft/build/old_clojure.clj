(ns weft.build.old-clojure
  "Loads a module's public namespaces on a Clojure older than weft supports, in a JVM of its
  own, for that module's clojure.test tests (every Clojure module has build/clojure on its test
  classpath): what a user on that Clojure sees.

  The old Clojure and the spec libraries it needs are copied from Maven Central into the folder
  named by the system property weft.test.old-clojure (the parent pom's `old-clojure`
  execution, in the clojure-module profile); the rest of the classpath is the test's own."
  (:require [clojure.java.io :as io]
            [clojure.string :as str]
            [clojure.test :refer [is]]
            [weft.build.module :as module])
  (:import (java.io File)
           (java.util.concurrent TimeUnit)))

(set! *warn-on-reflection* true)

(defn- old-jars []
  (let [dir (io/file (or (System/getProperty "weft.test.old-clojure") "target/old-clojure"))
        jars (sort (filter #(str/ends-with? (.getName ^File %) ".jar") (.listFiles dir)))]
    (when (empty? jars)
      (throw (IllegalStateException.
              (str "no old Clojure in " dir ": the parent pom's old-clojure execution copies it there"
                   " in the generate-test-resources phase; run the module's tests with mvn test"))))
    (map str jars)))

(defn classpath
  "This test's classpath with its Clojure (and spec libraries) replaced by the old ones."
  []
  (let [own (str/split (System/getProperty "java.class.path") (re-pattern File/pathSeparator))
        clojure-jar? #(re-find #"[/\\]org[/\\]clojure[/\\](clojure|spec\.alpha|core\.specs\.alpha)[/\\]" %)]
    (str/join File/pathSeparator (concat (old-jars) (remove clojure-jar? own)))))

(defn load-ns
  "Runs `(require 'ns-sym)` with clojure.main on the old Clojure; returns `{:exit n :out s}`
  (stdout and stderr together)."
  [ns-sym]
  (let [java (str (System/getProperty "java.home") File/separator "bin" File/separator "java")
        ^java.util.List command [java "-cp" (classpath) "clojure.main" "-e"
                                 (str "(println \"Clojure\" (clojure-version)) (require '" ns-sym ")")]
        p (-> (ProcessBuilder. command)
              (.redirectErrorStream true)
              (.start))
        out (future (slurp (.getInputStream p)))]
    (if (.waitFor p 120 TimeUnit/SECONDS)
      {:exit (.exitValue p) :out @out}
      (do (.destroyForcibly p)
          {:exit -1 :out (str @out "\n(killed after 120 s)")}))))

(defn check-module!
  "Asserts that loading each public namespace of the module on the old Clojure fails with the
  version weft needs and the fix, not with a reader or unresolved-symbol error."
  []
  (let [nss (module/public-namespaces)]
    (is (seq nss) "the module has public namespaces")
    (doseq [n nss]
      (let [{:keys [exit out]} (load-ns n)
            running (second (re-find #"(?m)^Clojure (\S+)" out))]
        (is (some-> running (str/starts-with? "1.10.")) (str "the subprocess runs the old Clojure:\n" out))
        (is (not= 0 exit) (str "(require '" n ") on Clojure " running " must fail"))
        (is (str/includes? out (str "weft needs Clojure 1.11 or newer; this process runs Clojure " running
                                    ": add org.clojure/clojure 1.11.4 or newer"))
            (str "(require '" n ") names the version and the fix:\n" out))
        (is (not (re-find #"Syntax error reading|Unable to resolve|Could not locate|did not conform to spec" out))
            (str "(require '" n ") fails on the version check, not before:\n" out))))))
