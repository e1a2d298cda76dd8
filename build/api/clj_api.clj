;; The public vars of a Clojure module's namespaces (those not marked ^:no-doc), one `ns/var` per
;; line, compared with the list committed in <module>/api/<artifact>.clj-api; run by Maven in the
;; verify phase of every Clojure module (see the parent pom and build/api/check.sh). Update on
;; purpose with: mvn -q verify -DskipTests -Dweft.api.update=true
;; Arguments: SRC_DIR MODULE_DIR ARTIFACT_ID UPDATE(true|false)
(require '[clojure.java.io :as io] '[clojure.string :as str])

(when (#{"weft-lab" "weft-bench" "weft-test-browser"} (nth *command-line-args* 2))   ; not libraries
  (System/exit 0))

(let [[src dir artifact update] *command-line-args*
      nss (->> (file-seq (io/file src))
               (filter #(str/ends-with? (str %) ".clj"))
               (map #(-> (str (.relativize (.toPath (io/file src)) (.toPath ^java.io.File %)))
                         (str/replace #"\.clj$" "") (str/replace java.io.File/separator ".") (str/replace "_" "-") symbol))
               sort)
      lines (for [n nss
                  :let [_ (require n)]
                  :when (not (:no-doc (meta (find-ns n))))
                  [sym v] (sort-by key (ns-publics n))
                  :when (not (:no-doc (meta v)))]
              (str n "/" sym (when (:macro (meta v)) " (macro)")))
      text (str (str/join "\n" lines) "\n")
      file (io/file dir "api" (str artifact ".clj-api"))]
  (cond
    (= update "true") (do (io/make-parents file) (spit file text) (println "api: wrote" (str file)))
    (not (.exists file))
    (do (binding [*out* *err*]
          (println "api:" artifact "has no list of public vars (" (str file) "). Create it with:"
                   "mvn -q verify -DskipTests -Dweft.api.update=true"))
        (System/exit 1))
    (not= text (slurp file))
    (let [old (set (str/split-lines (slurp file))) new (set (str/split-lines text))]
      (binding [*out* *err*]
        (println "api: the public vars of" artifact "changed:")
        (doseq [l (sort (remove new old))] (println "  -" l))
        (doseq [l (sort (remove old new))] (println "  +" l))
        (println "If the change is intended, update the list with: mvn -q verify -DskipTests -Dweft.api.update=true,"
                 "and commit" (str file)))
      (System/exit 1))))
(shutdown-agents)
(System/exit 0)
