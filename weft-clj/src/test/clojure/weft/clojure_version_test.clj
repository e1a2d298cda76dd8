(ns weft.clojure-version-test
  "On a Clojure older than weft supports, each public namespace of weft-clj fails to load with
  the version weft needs and the fix (weft.impl.clojure-version), in a JVM of its own."
  (:require [clojure.java.io :as io]
            [clojure.test :refer [deftest is]]
            [weft.build.old-clojure :as old]
            [weft.impl.clojure-version :as version]))

(deftest ^:slow on-clojure-1-10-loading-fails-naming-the-version-and-the-fix
  (old/check-module!))

(deftest the-check-and-the-poms-name-the-same-oldest-clojure
  ;; weft.test.src is <root>/weft-clj/src/main/clojure; the parent pom declares the version users get
  (let [pom (io/file (System/getProperty "weft.test.src") ".." ".." ".." ".." "pom.xml")
        declared (second (re-find #"<clojure.version>([^<]+)</clojure.version>" (slurp pom)))]
    (is (= declared (:fix version/minimum)))
    (is (= (str (:major version/minimum) "." (:minor version/minimum))
           (re-find #"^\d+\.\d+" declared)))))
