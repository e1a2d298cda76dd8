(ns ^:no-doc weft.impl.clojure-version
  "Internal to weft: the oldest Clojure weft supports, checked when weft loads. Every public weft
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
