(ns example.test-runner
  "Runs the project's clojure.test namespaces; exits 1 when a test failed (mvn test fails)."
  (:require [clojure.test :as t]))

(defn -main [& _]
  (let [namespaces '[example.app-test]]
    (apply require namespaces)
    (let [{:keys [fail error]} (apply t/run-tests namespaces)]
      (shutdown-agents)
      (System/exit (if (zero? (+ fail error)) 0 1)))))
