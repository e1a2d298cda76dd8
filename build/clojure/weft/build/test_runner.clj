(ns weft.build.test-runner
  "Runs every clojure.test namespace of a module and prints `N passed, N failed`.

  Used by the `clojure-test` execution of exec-maven-plugin (see the parent pom). Counts
  tests, not assertions, so its figures add up with Surefire's: a `deftest` passes when
  none of its assertions failed or threw. A test namespace that does not load counts as
  one failed test. Before the tests it loads every source namespace with
  `*warn-on-reflection*` on: each counts as one test, which fails when the namespace
  does not load or reflects.

  System properties:
    weft.test.dirs     test source directories (path-separator separated)
    weft.test.src      main source directories, checked for reflection
    weft.test.summary  file to write `passed failed` into, for ./weft test, then a line per
                       failed test: `ns/name: its first failure's message` (doc/testing.md)
    weft.test.only     optional: run only namespaces whose name contains this string
    weft.test.slow     optional: `false` skips tests marked `^:slow` (a database, a browser, long
                       drains), which run once, in the default tier (doc/testing.md)"
  (:require [clojure.java.io :as io]
            [clojure.string :as str]
            [clojure.test :as t])
  (:import (java.io File StringWriter)))

(set! *warn-on-reflection* true)

(defn- dirs [property]
  (->> (str/split (or (System/getProperty property) "") (re-pattern File/pathSeparator))
       (remove str/blank?)
       (map io/file)
       (filter #(.isDirectory ^File %))))

(defn- namespaces
  "Namespace symbols of the .clj files under `roots`, sorted, optionally only test files."
  [roots test-files?]
  (sort
   (for [^File root roots
         ^File f (file-seq root)
         :let [path (str (.relativize (.toPath root) (.toPath f)))]
         :when (and (.isFile f)
                    (str/ends-with? path ".clj")
                    (or (not test-files?) (str/ends-with? path "_test.clj")))]
     (-> path
         (str/replace #"\.clj$" "")
         (str/replace File/separator ".")
         (str/replace "_" "-")
         symbol))))

(defn- reflection-check
  "Loads source namespace `ns-sym` with reflection warnings on; returns the warnings, or nil."
  [ns-sym]
  (let [err (StringWriter.)]
    (try
      (binding [*err* err
                *warn-on-reflection* true]
        (require ns-sym :reload))
      (when (str/includes? (str err) "Reflection warning") (str err))
      (catch Throwable e
        (str "it does not load: " e)))))

(defn- run-namespace
  "Runs the tests of `ns-sym`, all of them or (when `skip-slow?`) those not marked `^:slow`."
  [ns-sym skip-slow?]
  (if skip-slow?
    (let [tests (->> (vals (ns-interns ns-sym))
                     (filter (comp :test meta))
                     (sort-by (comp :line meta)))
          slow (filter (comp :slow meta) tests)]
      (when (seq slow)
        (println (str "Skipping " (count slow) " ^:slow test(s) in " ns-sym " (weft.test.slow=false)")))
      (t/do-report {:type :begin-test-ns :ns (the-ns ns-sym)})
      (t/test-vars (remove (comp :slow meta) tests))
      (t/do-report {:type :end-test-ns :ns (the-ns ns-sym)}))
    (t/run-tests ns-sym)))

(defn- failure-name
  "How the summary file names a failed test: `ns/var`, or `ns (what failed)` for a namespace."
  [k]
  (if (var? k)
    (let [{:keys [ns name]} (meta k)] (str (ns-name ns) "/" name))
    (let [[kind ns-sym] k]
      (str ns-sym (case kind :reflection " (source: loads with reflection)" :load " (does not load)" " (outside a test)")))))

(defn- failure-reason
  "A failure's cause in a line: the exception an error threw, else the assertion's message, else
  what it expected."
  [m]
  (let [actual (:actual m)]
    (or (when (and (= :error (:type m)) (instance? Throwable actual)) (str "threw " actual))
        (:message m)
        (str "expected " (pr-str (:expected m))))))

(defn- first-line
  "The first line of `s`, at most 160 characters."
  [s]
  (let [line (first (str/split-lines (str s)))]
    (subs (str line) 0 (min 160 (count (str line))))))

(defn -main [& _]
  (println (str "Clojure " (clojure-version) " on Java " (System/getProperty "java.version")
                " (" (System/getProperty "java.home") ")"))
  (let [only (not-empty (System/getProperty "weft.test.only"))
        skip-slow? (= "false" (System/getProperty "weft.test.slow"))
        test-nss (cond->> (namespaces (dirs "weft.test.dirs") true)
                   only (filter #(str/includes? (str %) only)))
        ran (atom #{})
        failed (atom #{})
        why (atom {})
        original-report t/report]
    ;; Each source namespace counts as one test: it loads, and without reflection.
    (doseq [ns-sym (namespaces (dirs "weft.test.src") false)]
      (swap! ran conj [:reflection ns-sym])
      (when-let [problem (reflection-check ns-sym)]
        (println (str "FAIL " ns-sym ": " problem))
        (swap! failed conj [:reflection ns-sym])
        (swap! why assoc [:reflection ns-sym] problem)))
    (binding [t/report (fn [m]
                         (case (:type m)
                           :begin-test-var (swap! ran conj (:var m))
                           (:fail :error) (let [k (or (first t/*testing-vars*) [:namespace (ns-name *ns*)])]
                                            (swap! ran conj k)
                                            (swap! failed conj k)
                                            (swap! why #(if (contains? % k) % (assoc % k (failure-reason m)))))
                           nil)
                         (original-report m))]
      (doseq [ns-sym test-nss]
        (try
          (require ns-sym)
          (run-namespace ns-sym skip-slow?)
          (catch Throwable e
            (println (str "ERROR loading " ns-sym ":"))
            (.printStackTrace e (java.io.PrintWriter. *out* true))
            (swap! ran conj [:load ns-sym])
            (swap! failed conj [:load ns-sym])
            (swap! why assoc [:load ns-sym] (str "does not load: " e))))))
    (let [n-failed (count @failed)
          n-passed (- (count @ran) n-failed)
          line (str n-passed " passed, " n-failed " failed")]
      (println)
      (println line)
      (when-let [summary (System/getProperty "weft.test.summary")]
        (io/make-parents summary)
        (spit summary (str n-passed " " n-failed "\n"
                           (apply str (for [k (sort-by str @failed)]
                                        (str (failure-name k) ": " (first-line (get @why k)) "\n"))))))
      (flush)
      (shutdown-agents)
      (System/exit (if (zero? n-failed) 0 1)))))
