(ns ^:no-doc weft.impl.clojure-version
  "Internal to weft: the oldest Clojure and Java weft supports, checked when weft loads. Every public weft
  namespace requires this one first, so that on an older Clojure loading weft fails with the
  version it needs and the fix, before anything a newer Clojure added could fail to compile
  with a reader or unresolved-symbol error. Written for any Clojure (nothing newer than 1.4).")

(def minimum
  "The oldest Clojure weft supports: the oldest the matrix tier tests, and the version that
  weft's POMs declare for org.clojure/clojure (a project's own newer Clojure wins)."
  {:major 1 :minor 11 :fix "1.11.4"})

(let [{:keys [major minor]} *clojure-version*]
  (when (or (< major (:major minimum))
            (and (= major (:major minimum)) (< minor (:minor minimum))))
    (throw (ex-info (str "weft needs Clojure " (:major minimum) "." (:minor minimum) " or newer; this process runs Clojure "
                         (clojure-version) ": add org.clojure/clojure " (:fix minimum)
                         " or newer to your dependencies (deps.edn, project.clj or pom.xml)")
                    {:weft/needs-clojure (str (:major minimum) "." (:minor minimum))
                     :weft/clojure (clojure-version)}))))

(def minimum-java
  "The oldest Java weft runs on: the first with virtual threads (JEP 444)."
  21)

;; The JDK too, for the same reason: on an older one the first weft namespace that names
;; Thread/ofVirtual would fail to compile with a message about a missing method.
(let [spec (System/getProperty "java.specification.version")
      major (try (Integer/parseInt (if (.startsWith spec "1.") (subs spec 2) spec))
                 (catch NumberFormatException _ Integer/MAX_VALUE))]
  (when (< major minimum-java)
    (throw (ex-info (str "weft needs Java " minimum-java " or newer (virtual threads); this process runs Java " spec
                         " (" (System/getProperty "java.home") "): run it on a JDK " minimum-java
                         " or newer (set JAVA_HOME, or :java-cmd in project.clj)")
                    {:weft/needs-java minimum-java
                     :weft/java spec}))))
