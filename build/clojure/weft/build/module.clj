(ns weft.build.module
  "What a module's tests need to know about the module itself (build/clojure is on every
  Clojure module's test classpath)."
  (:require [clojure.java.io :as io]
            [clojure.string :as str])
  (:import (java.io File)))

(set! *warn-on-reflection* true)

(defn- impl-namespace? [ns-sym]
  (boolean (re-find #"(^|\.)impl(\.|$)" (str ns-sym))))

(defn public-namespaces
  "The module's public namespaces: those under its source folders (the test runner's
  weft.test.src) neither marked ^:no-doc (what the API dump leaves out, build/api/clj_api.clj)
  nor named impl (weft.impl, weft.ring.impl.websocket: implementation by weft's convention)."
  []
  (let [roots (->> (str/split (or (System/getProperty "weft.test.src") "") (re-pattern File/pathSeparator))
                   (remove str/blank?) (map io/file))
        nss (for [^File root roots
                  ^File f (file-seq root)
                  :when (and (.isFile f) (str/ends-with? (.getName f) ".clj"))]
              (-> (str (.relativize (.toPath root) (.toPath f)))
                  (str/replace #"\.clj$" "") (str/replace File/separator ".") (str/replace "_" "-") symbol))]
    (doseq [n nss] (require n))
    (sort (remove #(or (impl-namespace? %) (:no-doc (meta (find-ns %)))) nss))))
