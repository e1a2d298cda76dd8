(ns weft.build.clj-kondo
  "Checks the clj-kondo configuration a Clojure module ships in its jar, for that module's
  clojure.test tests (every Clojure module has build/clojure on its test classpath).

  clj-kondo imports a library's configuration from `clj-kondo.exports/<group>/<artifact>/` in
  its jar (`config.edn`, plus the hook namespaces it names, relative to that folder). Without
  it, clj-kondo reports the locals of weft's binding macros as unresolved symbols."
  (:require [clojure.edn :as edn]
            [clojure.java.io :as io]
            [clojure.string :as str]
            [clojure.test :refer [is testing]]
            [weft.build.module :as module]))

(set! *warn-on-reflection* true)

(defn config-dir
  "Where clj-kondo reads `artifact`'s configuration from its jar (and from target/classes)."
  [artifact]
  (str "clj-kondo.exports/dev.weft/" artifact))

(defn public-macros
  "The public macros of `nss`, as qualified symbols."
  [nss]
  (set (for [n nss
             [sym v] (ns-publics n)
             :when (and (:macro (meta v)) (not (:no-doc (meta v))))]
         (symbol (str n) (str sym)))))

(defn binds-nothing?
  "True when no arglist of macro `sym` starts with a binding form: a vector, or a parameter
  named bindings or name (what defines or binds names needs clj-kondo configuration)."
  [sym]
  (not-any? (fn [arglist]
              (let [p (first arglist)]
                (or (vector? p) ('#{bindings name} p))))
            (:arglists (meta (resolve sym)))))

(defn- read-config [artifact]
  (let [path (str (config-dir artifact) "/config.edn")
        url (io/resource path)]
    (is url (str path " is not on the classpath: the module's jar must carry it at that path"))
    (when url
      (is (re-find (re-pattern (str "/" artifact "/target/classes/|/" artifact "-[^/]*\\.jar!/")) (str url))
          (str path " must come from " artifact "'s own classes or jar, not from " url))
      (let [config (edn/read-string (slurp url))]   ; throws on invalid EDN
        (is (map? config) (str path " must be an EDN map"))
        config))))

(defn- hook-file
  "The text of hook namespace `hook-ns` (a symbol), where clj-kondo loads it from: the config
  folder is the root of its classpath."
  [artifact hook-ns]
  (some-> (io/resource (str (config-dir artifact) "/"
                            (-> (str hook-ns) (str/replace "-" "_") (str/replace "." "/")) ".clj"))
          slurp))

(defn hook-macro
  "Loads hook `hook-sym` (ns/name) of `artifact`'s configuration into a fresh namespace and
  returns its var: macroexpand hooks are plain Clojure macros, so a test can expand them."
  [artifact hook-sym]
  (let [text (hook-file artifact (symbol (namespace hook-sym)))]
    (is text (str "no hook file for " hook-sym " under " (config-dir artifact)))
    (when text
      (binding [*ns* *ns*]
        (load-string text))
      (resolve hook-sym))))

(defn check-config!
  "Asserts that `artifact`'s clj-kondo configuration is valid EDN at the path clj-kondo reads
  from a jar, and names every public macro of the module's public namespaces in `:lint-as` or
  `:hooks`, except the macros in `no-config` (each must bind nothing: see `binds-nothing?`);
  that every entry names a public macro, every `:lint-as` target is a clojure.core macro (or
  special form) and
  every hook exists. Returns the configuration."
  [artifact no-config]
  (let [config (read-config artifact)
        macros (public-macros (module/public-namespaces))
        lint-as (:lint-as config)
        hooks (merge (get-in config [:hooks :macroexpand]) (get-in config [:hooks :analyze-call]))
        configured (into (set (keys lint-as)) (keys hooks))]
    (is (seq macros) "the module has public macros (else it needs no configuration)")
    (is (= #{} (set (keys (dissoc config :lint-as :hooks))))
        "only :lint-as and :hooks: a library's exported configuration describes its macros, not the user's linters")
    (testing "every public macro is configured or binds nothing"
      (doseq [m (sort macros)]
        (is (or (configured m) (no-config m)) (str m " is a public macro with no clj-kondo configuration"))
        (when (no-config m)
          (is (binds-nothing? m) (str m " looks like a binding macro: it needs :lint-as or a hook"))))
      (doseq [m (concat configured no-config)]
        (is (macros m) (str m " is configured but is not a public macro of " artifact))))
    (testing ":lint-as targets are clojure.core macros or special forms, which clj-kondo knows"
      (doseq [[m target] lint-as]
        (is (and (= "clojure.core" (namespace target))
                 (or (special-symbol? (symbol (name target))) (:macro (meta (resolve target)))))
            (str m " is linted as " target ", which is not a clojure.core macro or special form"))))
    (testing "every hook namespace is shipped where clj-kondo loads it"
      (doseq [[m hook] hooks]
        (is (hook-file artifact (symbol (namespace hook))) (str m "'s hook " hook " is not under " (config-dir artifact)))))
    config))
