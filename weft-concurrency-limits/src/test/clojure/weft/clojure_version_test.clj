(ns weft.clojure-version-test
  "On a Clojure older than weft supports, weft.concurrency-limits fails to load with the version
  weft needs and the fix (weft.impl.clojure-version), in a JVM of its own."
  (:require [clojure.test :refer [deftest]]
            [weft.build.old-clojure :as old]))

(deftest ^:slow on-clojure-1-10-loading-fails-naming-the-version-and-the-fix
  (old/check-module!))
