(ns weft.clj-kondo-test
  "The clj-kondo configuration weft-async ships in its jar (clj-kondo.exports/dev.weft/weft-async)."
  (:require [clojure.test :refer [deftest]]
            [weft.build.clj-kondo :as kondo]))

(deftest the-jar-configures-clj-kondo-for-every-macro
  (kondo/check-config! "weft-async" #{}))
