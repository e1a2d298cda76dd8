(ns weft.lab.http
  "The Ring handler of the `http` scenario (article 003), and the weft-ring server that
  serves it in a JVM of its own (`dev.weft.lab.scenarios.http.HttpServerMain`)."
  (:require [weft.ring :as ring]))

(set! *warn-on-reflection* true)

(def ^:private sleep-ms 50)

(defn handler
  "The article's handler: on /hello it sleeps 50 ms (a slow backend call) and answers
  <b>hello!</b> as text/html; /nosleep answers the same at once; anything else is 404."
  [req]
  (case (:uri req)
    "/hello" (do (Thread/sleep (long sleep-ms))
                 {:status 200 :headers {"Content-Type" "text/html"} :body "<b>hello!</b>"})
    "/nosleep" {:status 200 :headers {"Content-Type" "text/html"} :body "<b>hello!</b>"}
    {:status 404 :headers {} :body "not found"}))

(defn start!
  "Starts weft-ring with its defaults on a free port of 127.0.0.1; returns the port."
  []
  (:port (ring/run-server handler {:port 0 :host "127.0.0.1"})))
