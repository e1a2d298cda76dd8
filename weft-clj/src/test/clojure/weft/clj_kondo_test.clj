(ns weft.clj-kondo-test
  "The clj-kondo configuration weft-clj ships in its jar (clj-kondo.exports/dev.weft/weft-clj)."
  (:require [clojure.test :refer [deftest is]]
            [weft.build.clj-kondo :as kondo]))

(deftest the-jar-configures-clj-kondo-for-every-binding-macro
  ;; fork takes a scope expression and a body, the pin macros a body: clj-kondo lints those
  ;; arguments as the expressions they are, so they need nothing
  (kondo/check-config! "weft-clj" '#{weft.scope/fork weft.pin/pins-of weft.pin/no-pins? weft.pin/pins?}))

(deftest the-with-scope-hook-binds-the-scope-for-the-body
  (let [hook (kondo/hook-macro "weft-clj" 'dev.weft.clj-kondo.hooks/with-scope)]
    (is (= '(clojure.core/let [s {:timeout 1000}] (f s) (g))
           (macroexpand-1 (list (symbol hook) '[s {:timeout 1000}] '(f s) '(g))))
        "opts evaluated, s bound for every body form")
    (is (= '(clojure.core/let [s nil] (f s))
           (macroexpand-1 (list (symbol hook) '[s] '(f s))))
        "without opts")))
