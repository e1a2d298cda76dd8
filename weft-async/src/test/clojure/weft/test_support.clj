(ns weft.test-support
  "Helpers shared by weft-async's tests (not a test namespace itself: its name does not end
  in -test)."
  (:require [clojure.core.async :as a]))

(defn within
  "The value `ch` yields within `ms` (default 20 s), or :weft.test-support/timeout: a hang
  guard, never a speed check."
  ([ch] (within ch 20000))
  ([ch ms]
   (let [[v port] (a/alts!! [ch (a/timeout ms)])]
     (if (= port ch) v ::timeout))))
