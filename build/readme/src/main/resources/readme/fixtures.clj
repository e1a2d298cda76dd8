(ns readme.fixtures
  "The names README Clojure blocks leave to the user. The runner refers this namespace, and
  imports readme.fixtures.LegacyConfig and Cache, in the namespace of every Clojure block
  (doc/readme-blocks.md).")

(defn fetch
  "Stands for your HTTP call: blocks 1 ms the way a socket read does (a sleep unmounts a virtual
  thread, so it does not pin) and returns a body naming `url`."
  [url]
  (Thread/sleep 1)
  (str "<html>" url "</html>"))
