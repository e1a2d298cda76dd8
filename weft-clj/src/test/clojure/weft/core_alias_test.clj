(ns weft.core-alias-test
  "weft.core, the deprecated name of weft.thread: same vars, a one-time warning."
  (:require [clojure.string :as str]
            [clojure.test :refer [deftest is]]
            [weft.thread :as thread]))

(deftest the-old-namespace-is-an-alias-that-warns-once
  (let [err (java.io.StringWriter.)]
    (binding [*err* err]
      (require 'weft.core :reload)
      (require 'weft.core :reload))
    (is (<= (count (re-seq #"namespace weft.core is deprecated" (str err))) 1)
        "at most one warning per JVM (none here when another test loaded it first)")
    (when-not (str/blank? (str err))
      (is (str/includes? (str err) "require weft.thread instead"))))
  (let [old-ns (find-ns 'weft.core)]
    (doseq [[sym v] (ns-publics 'weft.thread)]
      (let [old (ns-resolve old-ns sym)]
        (is (some? old) (str "weft.core/" sym " still exists"))
        (is (= "0.1.0" (:deprecated (meta old))) (str "weft.core/" sym " is marked deprecated"))
        (is (= (boolean (:macro (meta v))) (boolean (:macro (meta old)))) (str sym ": a macro stays a macro"))
        (is (identical? @v @old) (str "weft.core/" sym " is weft.thread/" sym))))
    (is (= (set (keys (ns-publics 'weft.thread))) (set (keys (ns-publics old-ns)))) "no more, no fewer vars"))
  (is (true? @(eval '(weft.core/vfuture (weft.core/virtual-thread?)))) "the old macros expand and run")
  (is (true? @(thread/vfuture (thread/virtual-thread?)))))
