(ns weft.jdk-version-test
  "On a JDK older than 21 (Debian's JDK 17), each public namespace of weft-clj fails to load with
  one line naming the Java weft needs (weft.impl.clojure-version), in a JVM of its own."
  (:require [clojure.test :refer [deftest]]
            [weft.build.old-jdk :as old-jdk]))

(deftest ^:slow on-jdk-17-loading-fails-naming-the-java-it-needs
  (old-jdk/check-module!))
