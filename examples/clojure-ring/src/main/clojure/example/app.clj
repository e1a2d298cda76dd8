(ns example.app
  "A Ring app on weft-ring: GET /total?items=a,b,c prices every item at once with
  weft.scope/pmap (each call on a virtual thread, at most 8 at a time) and answers the total."
  (:require [weft.ring :as ring]
            [weft.scope :as s]))

(set! *warn-on-reflection* true)

(defn price
  "The price of `item`, from a slow downstream (here: 20 ms of blocking, and a made-up price)."
  [item]
  (Thread/sleep 20)
  (* 10 (count item)))

(defn handler
  "The Ring handler: 200 with the total of the items' prices, 400 without items."
  [{:keys [uri query-string]}]
  (let [items (some->> query-string (re-find #"(?:^|&)items=([^&]*)") second (re-seq #"[^,]+"))]
    (cond
      (not= "/total" uri) {:status 404 :headers {"content-type" "text/plain"} :body "not found"}
      (empty? items) {:status 400 :headers {"content-type" "text/plain"} :body "give ?items=a,b,c"}
      :else {:status 200
             :headers {"content-type" "text/plain"}
             :body (str (reduce + (s/pmap price items {:max-concurrency 8})))})))

(defn start
  "Starts the server on `port` (0: any free one); stop it with weft.ring/stop-server!."
  [port]
  (ring/run-server handler {:port port :host "127.0.0.1"}))

(defn -main [& [port]]
  (let [server (start (parse-long (or port "8080")))]
    (println (str "serving on http://127.0.0.1:" (:port server) "/total?items=tea,milk"))))
